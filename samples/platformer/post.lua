-- post.lua: the post effect. The world is drawn into a canvas (every system that draws the world
-- gets it in a "canvas" message and passes it as `target`), and this system draws the canvas on
-- the screen through post.frag, a game shader: edit post.frag while the game runs and the
-- picture changes; a compile error is logged with its line and the old shader stays.
--
--   out: ("canvas", canvas) to level, camera, player, coins, particles once, and again to one
--   that restarted
--
-- Setup sent once is lost when its receiver restarts (a restart is a fresh state, `init` again
-- with the spawn's args). So post monitors each system it sets up: the runtime then tells it,
-- in a message from ona.runtime, when one of them restarted, and post sends it the canvas again.
-- They are all after post, so the canvas is there for the fresh state's first turn.
local config = require("config")

return {
  init = function(state)
    state.w, state.h = ona.gfx.size()
    state.canvas = ona.gfx.canvas(state.w, state.h)
    local err
    state.shader, err = ona.gfx.shader("post.frag")
    assert(state.shader, err)
    for _, name in ipairs({ "level", "camera", "player", "coins", "particles" }) do
      local peer = ona.lookup(name)
      ona.monitor(peer) -- told when it pauses, resumes, restarts or ends
      ona.send(peer, "canvas", state.canvas) -- all after post: they draw into it from frame 1
    end
  end,

  process = function(state)
    for from, what, peer in ona.messages() do
      if from == ona.runtime and what == "restarted" then
        ona.send(peer, "canvas", state.canvas)
      end
    end
    local sw, sh = ona.gfx.size()
    ona.gfx.canvas_clear(state.canvas, 0, 0, 0, 1) -- the canvas keeps its pixels until cleared
    ona.gfx.uniform(state.shader, "u_game_time", ona.time())
    ona.gfx.uniform(state.shader, "u_resolution", { sw, sh })
    ona.gfx.draw(state.canvas, 0, 0, {
      sx = sw / state.w, sy = sh / state.h, layer = config.layers.screen, shader = state.shader,
    })
  end,
}

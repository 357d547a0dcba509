-- Every misuse raises at this file's line under the public name: reports each error message.
return {
  init = function(state, args)
    state.report = args.report
    state.tex = ona.gfx.texture(args.tex)
  end,
  process = function(state)
    if state.done then
      return
    end
    state.done = true
    local sheet = ona.gfx.sheet(state.tex, 8, 8, { animations = { a = { frames = { 1 } } } })
    local map = ona.gfx.tilemap(state.tex, 8, 8, 4, 4)
    local cases = {
      function() ona.gfx.rect(1, 2, 3) end,
      function() ona.gfx.rect(1, 2, 3, 4, { mode = "dotted" }) end,
      function() ona.gfx.circle(1, 2, -3) end,
      function() ona.gfx.circle(1, 2, 3, { segments = 2 }) end,
      function() ona.gfx.line(1, 2, 3) end,
      function() ona.gfx.line(1, 2, 3, 4, { width = 0 }) end,
      function() ona.gfx.line(1, 2, 3, 4, { cap = "pointy" }) end,
      function() ona.gfx.polygon({ 1, 2, 3, 4 }) end,
      function() ona.gfx.polygon({ 1, 2, 3, 4, 5, "x" }) end,
      function() ona.gfx.rect(1, 2, 3, 4, { tint = "red" }) end,
      function() ona.gfx.sheet(state.tex, 0, 8) end,
      function() ona.gfx.sheet(state.tex, 8, 8, { animations = { a = { frames = { 99 } } } }) end,
      function() sheet:draw(99, 0, 0) end,
      function() sheet:animation("nope") end,
      function() sheet:animation("a"):update(-1) end,
      function() ona.gfx.tilemap(state.tex, 8, 8, 0, 4) end,
      function() ona.gfx.tilemap(state.tex, 8, 8, 4, 4, ona.buffer("float", 16)) end,
      function() map:set(4, 0, 1) end,
      function() map:set(0, 0, 70000) end,
      function() map.get(5, 0, 0) end,
      function() ona.gfx.rect(1, 2, 3, 4, { layer = 1.5 }) end,
    }
    -- A missing texture is no misuse: the sheet draws the placeholder for any frame.
    local lost = ona.gfx.sheet(ona.gfx.texture("missing.png"), 64, 64,
      { animations = { a = { frames = { 1, 5 } } } })
    local anim = lost:animation("a")
    anim:update(0.1)
    ona.send(state.report, "placeholder", pcall(anim.draw, anim, 0, 0), anim:frame())
    for i, f in ipairs(cases) do
      local ok, err = pcall(f)
      ona.send(state.report, "case", i, ok, tostring(err))
    end
  end,
}

-- collisions.lua: owns the world's hit tests. Every frame the moving parts send it where they
-- are; it finds what hit what and tells the owners, who change their own state.
--
--   in:  ("formation", {x, y, vx, alive}) from invaders; ("player", x, alive) from player;
--        ("bullets", {id, kind, x, y, py, ...}) from bullets; ("shields", masks) from shields;
--        ("watch") from anyone who wants the world summary (the autoplay pilot)
--   out: ("remove", {id, ...}) to bullets; ("killed", row, col) to invaders;
--        ("invader", kind) to score; ("hit") to player; ("erase", {x0, y0, x1, y1, ...})
--        to shields; ("world", {px, vx, cols, bombs}) to watchers
--
-- It runs after invaders, player, bullets and shields (main.lua), so what it reads is where
-- everything is this frame. What it reports to them arrives at their next turn, before they
-- move and report again, so next frame's snapshots no longer show a spent shot, a killed
-- invader or a hit cannon: nothing is reported twice, and nothing needs remembering.
local bit = require("bit")
local config = require("config")
local messages = require("messages")

local C = config
local B = C.shield_block

local function overlap(ax0, ay0, ax1, ay1, bx0, by0, bx1, by1)
  return ax0 < bx1 and bx0 < ax1 and ay0 < by1 and by0 < ay1
end

-- Calls f(s, r, c, x0, y0) for each intact shield block overlapping the rectangle; stops and
-- returns what f returns when that is not nil.
local function blocks(masks, x0, y0, x1, y1, f)
  if not overlap(x0, y0, x1, y1, 0, C.shield_y, C.width, C.shield_y + C.shield_rows * B) then
    return
  end
  for s = 1, C.shields do
    local left = C.shield_x[s]
    local c0 = math.max(1, math.floor((x0 - left) / B) + 1)
    local c1 = math.min(C.shield_cols, math.ceil((x1 - left) / B))
    local r0 = math.max(1, math.floor((y0 - C.shield_y) / B) + 1)
    local r1 = math.min(C.shield_rows, math.ceil((y1 - C.shield_y) / B))
    for r = r0, r1 do
      local mask = masks[(s - 1) * C.shield_rows + r] or 0
      for c = c0, c1 do
        if bit.band(mask, bit.lshift(1, c - 1)) ~= 0 then
          local v = f(s, r, c, left + (c - 1) * B, C.shield_y + (r - 1) * B)
          if v ~= nil then
            return v
          end
        end
      end
    end
  end
end

-- The shield block a shot moving up (laser) or down (bomb) meets first in its swept rectangle:
-- its top-left corner, or nil.
local function shield_hit(masks, x0, y0, x1, y1, up)
  local bx, by
  blocks(masks, x0, y0, x1, y1, function(_, _, _, x, y)
    if not by or (up and y > by) or (not up and y < by) then
      bx, by = x, y
    end
  end)
  return bx, by
end

-- The shot's rectangle, swept from where it was to where it is.
local function shot_rect(kind, x, y, py)
  local w, h = C.laser_w, C.laser_h
  if kind ~= 0 then
    w, h = C.bomb_w, C.bomb_h
  end
  return x - w / 2, math.min(y, py), x + w / 2, math.max(y, py) + h
end

local function invader_rect(f, r, c)
  local w = C.invader_w[C.kind_of_row[r]]
  local cx = f.x + (c - 1) * C.cell_w + C.cell_w / 2
  local top = f.y + (r - 1) * C.cell_h
  return cx - w / 2, top, cx + w / 2, top + C.invader_h
end

local function is_alive(f, r, c)
  return bit.band(f.alive[r] or 0, bit.lshift(1, c - 1)) ~= 0
end

local handlers = {
  formation = function(state, _, f)
    state.formation = f
  end,
  player = function(state, _, x, alive)
    state.player = { x = x, alive = alive }
  end,
  bullets = function(state, _, list)
    state.bullets = list
  end,
  shields = function(state, _, masks)
    state.shields = masks
  end,
  watch = function(state, from)
    state.watchers[#state.watchers + 1] = from
  end,
}

-- One frame's tests; fills `out` with what to report, and out.spent with the shots that hit
-- something (a shot hits one thing).
local function test(state, out)
  local f, p, list, masks = state.formation, state.player, state.bullets, state.shields
  local spent = out.spent
  local function spend(id)
    spent[id] = true
    out.remove[#out.remove + 1] = id
  end
  for i = 1, #list, 5 do
    local id, kind, x, y, py = list[i], list[i + 1], list[i + 2], list[i + 3], list[i + 4]
    if not spent[id] then
      local x0, y0, x1, y1 = shot_rect(kind, x, y, py)
      local bx, by = shield_hit(masks, x0, y0, x1, y1, kind == 0)
      if bx then
        spend(id)
        local e = out.erase
        if kind == 0 then
          e[#e + 1], e[#e + 2], e[#e + 3], e[#e + 4] = bx - 1, by - 3, bx + B + 1, by + B
        else
          e[#e + 1], e[#e + 2], e[#e + 3], e[#e + 4] = bx - 2, by, bx + B + 2, by + B + 3
        end
      elseif kind == 0 then
        -- The laser: an invader, else a bomb it meets (both go).
        for r = C.rows, 1, -1 do
          for c = 1, C.cols do
            if not spent[id] and is_alive(f, r, c) then
              if overlap(x0, y0, x1, y1, invader_rect(f, r, c)) then
                spend(id)
                out.killed[r * 100 + c] = true
                out.kills[#out.kills + 1] = { r, c, y }
              end
            end
          end
        end
        for j = 1, #list, 5 do
          if not spent[id] and list[j + 1] ~= 0 and not spent[list[j]] then
            if overlap(x0, y0, x1, y1, shot_rect(list[j + 1], list[j + 2], list[j + 3], list[j + 4])) then
              spend(id)
              spend(list[j])
            end
          end
        end
      elseif p.alive and not out.hit then
        local half = C.player_w / 2
        if overlap(x0, y0, x1, y1, p.x - half, C.player_y, p.x + half, C.player_y + C.player_h) then
          spend(id)
          out.hit = true
        end
      end
    end
  end
  -- Invaders marching through a shield wear it away.
  for r = 1, C.rows do
    for c = 1, C.cols do
      if is_alive(f, r, c) then
        local x0, y0, x1, y1 = invader_rect(f, r, c)
        if blocks(masks, x0, y0, x1, y1, function() return true end) then
          local e = out.erase
          e[#e + 1], e[#e + 2], e[#e + 3], e[#e + 4] = x0, y0, x1, y1
        end
      end
    end
  end
end

-- What the autoplay pilot needs: the cannon, the formation's speed, each column's lowest
-- invader (centre x, bottom y), the bombs (x, top y); without what this frame's tests (`out`)
-- removed.
local function summary(state, out)
  local f, p, list = state.formation, state.player, state.bullets
  local cols, bombs = {}, {}
  for c = 1, C.cols do
    for r = C.rows, 1, -1 do
      if is_alive(f, r, c) and not out.killed[r * 100 + c] then
        cols[#cols + 1] = f.x + (c - 1) * C.cell_w + C.cell_w / 2
        cols[#cols + 1] = f.y + (r - 1) * C.cell_h + C.invader_h
        break
      end
    end
  end
  for i = 1, #list, 5 do
    if list[i + 1] ~= 0 and not out.spent[list[i]] then
      bombs[#bombs + 1] = list[i + 2]
      bombs[#bombs + 1] = list[i + 3]
    end
  end
  return { px = p.x, vx = f.vx or 0, cols = cols, bombs = bombs }
end

return {
  init = function(state, args)
    state.probe = args.probe
    state.kill_sound = ona.audio.sound("kill.wav")
    state.peers = messages.peers
    state.watchers = {}
  end,

  process = function(state)
    messages.dispatch(state, handlers)
    if not (state.formation and state.player and state.bullets and state.shields) then
      return -- one of them is restarting and has not reported yet
    end
    local out = { remove = {}, erase = {}, kills = {}, killed = {}, spent = {} }
    test(state, out)
    local peers = state.peers
    if #out.remove > 0 then
      ona.send(peers.bullets, "remove", out.remove)
    end
    if #out.erase > 0 then
      ona.send(peers.shields, "erase", out.erase)
    end
    for _, k in ipairs(out.kills) do
      ona.send(peers.invaders, "killed", k[1], k[2])
      ona.send(peers.score, "invader", C.kind_of_row[k[1]])
      ona.audio.play(state.kill_sound, { volume = 0.6, group = "sfx" })
      if state.probe then
        ona.send(state.probe, "kill", k[3], ona.frame())
      end
    end
    if out.hit then
      ona.send(peers.player, "hit")
    end
    if #state.watchers > 0 then
      local world = summary(state, out)
      for _, w in ipairs(state.watchers) do
        ona.send(w, "world", world)
      end
    end
  end,
}

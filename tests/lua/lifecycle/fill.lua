-- A one-shot main.lua that spawns idle systems until a spawn fails (max_systems), then reports
-- ("filled", count, reason) and, as its chunk's last statement, ("done").
local args = ...
local count, reason = 0, nil
for i = 1, args.limit do
  local h, why = ona.spawn("idle.lua", nil, { name = "t" .. i })
  if not h then
    reason = why
    break
  end
  count = count + 1
end
ona.send(args.report, "filled", count, tostring(reason))
ona.send(args.report, "done")

-- Chaos one-shot: its chunk is its whole life; it counts itself at the tally.
local n = ...
local tally = ona.lookup("tally")
if tally then
  ona.try_send(tally, "oneshot", 0, n and 1 or 0)
end

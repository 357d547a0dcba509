-- A system that does nothing each turn.
return {
  process = function(state) end,
}

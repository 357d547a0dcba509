-- Sends every pile an impulse for one of its bodies every third frame.
return {
  process = function(state)
    local f = ona.frame()
    if f % 3 ~= 0 then
      return
    end
    for p = 1, 3 do
      local pile = ona.lookup("pile" .. p)
      if pile then
        ona.send(pile, 1 + (f * 7 + p) % 60, ((f * 13) % 21 - 10) * 5, -40)
      end
    end
  end,
}

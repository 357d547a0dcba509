-- Works a while every turn (a fixed amount of arithmetic, no clock), so that every frame is long
-- enough for the scheduler to share it with the other threads.
return {
  process = function(state)
    local x = 0
    for i = 1, 300000 do
      x = (x + i * 7) % 1000003
    end
    state.x = x
  end,
}

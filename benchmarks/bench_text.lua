-- bench_text (benchmarks/bench_text.c): prints 100 lines of 100 printable ASCII characters a
-- frame with the default font at 12 px, the same text as the C printer.
local lines = {}
for i = 0, 99 do
  local chars = {}
  for c = 0, 99 do
    chars[#chars + 1] = string.char(33 + (i + c * 7) % 94)
  end
  lines[i + 1] = table.concat(chars)
end
return {
  init = function(state)
    state.font = ona.gfx.font(12)
    state.opts = { tint = 0xE6E6E6FF }
  end,
  process = function(state)
    local font, opts = state.font, state.opts
    for i = 1, 100 do
      ona.gfx.print(font, lines[i], 4, 4 + (i - 1) * 7, opts)
    end
  end,
}

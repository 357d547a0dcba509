-- The FFI fast path of ona.send / ona.receive and its ways back to the C functions.
-- Each check is reported to args.report as (name, passed, detail); the test wants every one
-- passed. The checks run in the first turn only. With args.small (a mailbox of 2) it checks a
-- full mailbox; otherwise it expects one number sent from C (args.from_c) in its mailbox.
local function report(state, name, ok, detail)
  ona.send(state.report, name, ok and true or false, tostring(detail))
end

return {
  init = function(state, args)
    state.report = args.report
    state.from_c = args.from_c
    state.small = args.small
  end,
  process = function(state)
    if state.done then
      return
    end
    state.done = true
    local me = ona.self()
    if state.small then
      -- A full mailbox where the code cannot wait (a nested coroutine): the third send raises.
      local sent = 0
      local ok, err = pcall(coroutine.wrap(function()
        for i = 1, 3 do
          ona.send(me, i)
          sent = i
        end
      end))
      local _, v1 = ona.receive()
      local _, v2 = ona.receive()
      report(state, "full mailbox", not ok and sent == 2 and v1 == 1 and v2 == 2
        and err:find("is full") ~= nil, tostring(err))
      return
    end
    -- A number from C: `from` is false, as the C path says.
    local from, n = ona.receive()
    report(state, "from C", from == false and n == state.from_c, tostring(from) .. " " .. tostring(n))

    -- Many numbers to itself: compiled loops of fast sends and receives, in order, none lost.
    local sum, order_ok = 0, true
    for round = 1, 20 do
      for i = 1, 50 do
        ona.send(me, round * 1000 + i)
      end
      for i = 1, 50 do
        local f, v = ona.receive()
        order_ok = order_ok and f == me and v == round * 1000 + i
        sum = sum + v
      end
    end
    report(state, "numbers in order", order_ok and sum == 20 * 1275 + 1000 * 50 * 210, sum)

    -- Messages the fast path does not take, between numbers: order and values kept.
    ona.send(me, 1.5)
    ona.send(me, 2, 3)
    ona.send(me, { x = 1 })
    ona.send(me, "s")
    ona.send(me, true)
    ona.send(me, -0.25)
    local got = {}
    for i = 1, 6 do
      local f, a, b = ona.receive()
      got[i] = (f == me) and (type(a) == "table" and "t" .. a.x or tostring(a)) .. "/" .. tostring(b)
    end
    local text = table.concat(got, " ")
    report(state, "mixed messages", text == "1.5/nil 2/3 t1/nil s/nil true/nil -0.25/nil", text)

    -- Strings take the fast send: bytes kept, NULs and heap-sized ones included, in order.
    local long = ("0123456789"):rep(30)
    local strings = { "", "a\0b", long, "x" }
    local same = true
    for round = 1, 4 do
      for i = 1, 50 do
        ona.send(me, strings[i % 4 + 1])
      end
      for i = 1, 50 do
        local f, v = ona.receive()
        same = same and f == me and v == strings[i % 4 + 1]
      end
    end
    report(state, "strings", same, "")

    -- A bad handle still raises at the author's line under ona.send's name.
    local ok, err = pcall(ona.send, 12345, 1)
    report(state, "stale handle", not ok and err:find("fastpath%.lua:%d+: ona%.send: no such system") ~= nil, err)
    ok, err = pcall(ona.send, 0.5, 1)
    report(state, "not a handle", not ok and err:find("fastpath%.lua:%d+: ona%.send: bad argument #1") ~= nil, err)

  end,
}

-- Chaos module, the broken copy (copied to flaky.lua): a "fail" command raises.
return {
  obey = function(command)
    if command == "fail" then
      error("chaos: told to fail")
    end
  end,
}

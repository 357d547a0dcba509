-- A system that does nothing, for tests/test_capi.c.
return { process = function() end }

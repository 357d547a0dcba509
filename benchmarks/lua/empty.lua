-- The smallest system: a turn that does nothing. Used for spawn cost, memory per system, the
-- empty-turn cost and idle frames.
return { process = function() end }

-- pipeline: producer -> transformer -> consumer, with backpressure.
-- The consumer is slow (it takes at most 50 items a frame) and its mailbox is small, so the
-- transformer and then the producer wait in ona.send() for room: run with --stats and watch the
-- mailbox high-water marks and the parks.
-- Each runs after the one that feeds it, so an item with room all the way through goes from the
-- producer to the consumer within one frame.
assert(ona.spawn("consumer.lua", { per_frame = 50, total = 6000 },
  { name = "consumer", mailbox = 32, after = { "transformer" } }))
assert(ona.spawn("transformer.lua", { to = "consumer" },
  { name = "transformer", mailbox = 32, after = { "producer" } }))
assert(ona.spawn("producer.lua", { to = "transformer", per_frame = 200 }, { name = "producer" }))

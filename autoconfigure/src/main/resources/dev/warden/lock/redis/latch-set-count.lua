-- Sets a count-down latch's count unless it exists (the layout of Redisson's RCountDownLatch).
--
-- KEYS[1]  the latch: a string holding the remaining count
-- ARGV[1]  the count
-- ARGV[2]  the latch's channel, redisson_countdownlatch__channel__{name}
--
-- Returns  1 when set (message 1, a new count, is published); 0 when the latch already existed.
if redis.call('exists', KEYS[1]) == 1 then
    return 0
end
redis.call('set', KEYS[1], ARGV[1])
redis.call('publish', ARGV[2], '1')
return 1

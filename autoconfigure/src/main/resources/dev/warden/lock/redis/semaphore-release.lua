-- Returns permits to a semaphore and announces how many are available.
--
-- KEYS[1]  the semaphore
-- ARGV[1]  how many permits to return
-- ARGV[2]  the semaphore's channel, redisson_sc:{name}
--
-- Returns  the number of available permits after the release (also the message published).
local available = redis.call('incrby', KEYS[1], ARGV[1])
redis.call('publish', ARGV[2], available)
return available

-- Takes one permit of a permit-expirable semaphore, with its own lease.
--
-- KEYS[1]  the semaphore's capacity: a string, the number of permits
-- KEYS[2]  the permits out: a zset, permit id -> expiry (epoch ms, Redis clock)
-- ARGV[1]  the new permit's id
-- ARGV[2]  its lease in milliseconds
-- ARGV[3]  the semaphore's channel
-- Reads Redis's clock with redisClock (redis-clock.lua, a prelude).
--
-- Returns  {1, 0} when taken; {0, wait} otherwise: wait is the ms until the next permit out
--          expires (-1: none out, so only a release or a raised capacity can help).
local _, now = redisClock()
if redis.call('zremrangebyscore', KEYS[2], '-inf', now) > 0 then
    -- Expired permits are back in the pool: others may be waiting for them.
    redis.call('publish', ARGV[3], '1')
end
local capacity = tonumber(redis.call('get', KEYS[1]) or '0')
if capacity - redis.call('zcard', KEYS[2]) >= 1 then
    redis.call('zadd', KEYS[2], now + tonumber(ARGV[2]), ARGV[1])
    return {1, 0}
end
local next = redis.call('zrange', KEYS[2], 0, 0, 'WITHSCORES')
if next[2] == nil then
    return {0, -1}
end
return {0, math.max(0, tonumber(next[2]) - now)}

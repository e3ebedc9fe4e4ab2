-- Takes permits from a semaphore if enough are available (the layout of Redisson's RSemaphore).
--
-- KEYS[1]  the semaphore: a string holding the number of available permits
-- ARGV[1]  how many permits to take
--
-- Returns  -1 when taken; otherwise the number of available permits (0 when the semaphore does not
--          exist yet).
local available = tonumber(redis.call('get', KEYS[1]) or '0')
if available >= tonumber(ARGV[1]) then
    redis.call('decrby', KEYS[1], ARGV[1])
    return -1
end
return available

-- Sets a semaphore's permits unless it already exists.
--
-- KEYS[1]  the semaphore
-- ARGV[1]  the number of permits
-- ARGV[2]  the semaphore's channel
--
-- Returns  1 when set (the count is published); 0 when the semaphore already existed.
if redis.call('exists', KEYS[1]) == 1 then
    return 0
end
redis.call('set', KEYS[1], ARGV[1])
redis.call('publish', ARGV[2], ARGV[1])
return 1

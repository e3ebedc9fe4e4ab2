-- Counts a latch down; reaching zero deletes it and wakes every waiter.
--
-- KEYS[1]  the latch
-- ARGV[1]  the latch's channel
--
-- Returns  the remaining count (0 or less: open; the key is gone and message 0 was published
--          when it reached zero).
local remaining = redis.call('decr', KEYS[1])
if remaining <= 0 then
    redis.call('del', KEYS[1])
end
if remaining == 0 then
    redis.call('publish', ARGV[1], '0')
end
return remaining

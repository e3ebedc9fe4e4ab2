-- Takes a waiter that gives up out of a fair lock's queue; those behind it move up one place.
--
-- KEYS[1]  the waiters' queue
-- KEYS[2]  the waiters' deadlines
-- ARGV[1]  owner id
-- ARGV[2]  how long a waiter keeps its place, in ms (as when it joined)
--
-- Returns  1 when the waiter was queued; 0 otherwise.
local queue = redis.call('lrange', KEYS[1], 0, -1)
local position = nil
for i, waiter in ipairs(queue) do
    if waiter == ARGV[1] then
        position = i
        break
    end
end
if position == nil then
    return 0
end
for i = position + 1, #queue do
    redis.call('zincrby', KEYS[2], -tonumber(ARGV[2]), queue[i])
end
redis.call('zrem', KEYS[2], ARGV[1])
redis.call('lrem', KEYS[1], 0, ARGV[1])
return 1

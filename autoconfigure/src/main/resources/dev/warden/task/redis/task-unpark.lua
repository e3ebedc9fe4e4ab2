-- For a consumer without task limits: makes the tasks that consumers with limits deferred due
-- again, at their own due times (a deploy removed the queue's limits, say, and no instance is left
-- to make them due). Once none is left, the limits' index and wake-ups go, and slots whose tasks are
-- no longer in flight. Bounded per call.
--
-- KEYS[1]  due zset (a deferred task is scored PARKED past its due time)
-- KEYS[2]  parked zset
-- KEYS[3]  wakes zset
-- KEYS[4]  slots zset
-- KEYS[5]  in-flight zset
-- ARGV[1]  how many tasks at most
-- ARGV[2]  the queue's wake-up channel
--
-- Runs after task-limits.lua (PARKED, slotDeadline).
--
-- Returns  how many tasks became due.
local found = redis.call('zrangebyscore', KEYS[1], PARKED, '+inf', 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[1]))
if #found == 0 then
    redis.call('del', KEYS[2], KEYS[3])
    for _, slot in ipairs(redis.call('zrange', KEYS[4], 0, 99)) do
        slotDeadline(KEYS[4], KEYS[5], slot)
    end
    return 0
end
for i = 1, #found, 2 do
    redis.call('zadd', KEYS[1], tonumber(found[i + 1]) - PARKED, found[i])
end
redis.call('publish', ARGV[2], '0')
return #found / 2

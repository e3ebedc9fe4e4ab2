-- Counts a queue's tasks in one consistent read, for metrics and the operator's views.
--
-- KEYS[1]  due zset
-- KEYS[2]  in-flight zset
-- KEYS[3]  dead letters hash
-- KEYS[4]  wakes zset of the queue's task limits (task-limits.lua)
--
-- Returns  {pending, in flight, dead letters, when the next task falls due in ms (-1: none), deferred}:
--          a task deferred by the queue's limits is pending but not due (it is scored 1e15 past its
--          due time); the next due time is then its key's wake-up, when it has one.
local first = redis.call('zrangebyscore', KEYS[1], '-inf', '(1e15', 'WITHSCORES', 'LIMIT', 0, 1)
local next = first[2] and math.floor(tonumber(first[2]))
local wake = redis.call('zrange', KEYS[4], 0, 0, 'WITHSCORES')
if wake[2] and (next == nil or tonumber(wake[2]) < next) then
    next = math.floor(tonumber(wake[2]))
end
return {redis.call('zcard', KEYS[1]), redis.call('zcard', KEYS[2]), redis.call('hlen', KEYS[3]), next or -1,
    redis.call('zcount', KEYS[1], '1e15', '+inf')}

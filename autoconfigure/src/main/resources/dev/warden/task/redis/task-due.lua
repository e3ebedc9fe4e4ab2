-- The due time of a pending task, counting one claimed ahead of its due time that has not started.
-- Runs after task-revoke.lua.
--
-- KEYS[1]  due zset
-- KEYS[2]  meta hash (c:<id> claim token, d:<id> due time of a task claimed ahead)
-- ARGV[1]  task id
--
-- Returns  the due time (epoch ms); -1 when no such task is pending.
local id = ARGV[1]
local score = redis.call('zscore', KEYS[1], id)
if score then
    return tonumber(score)
end
local claim = redis.call('hmget', KEYS[2], 'c:' .. id, 'd:' .. id)
local time = redis.call('TIME')
if claim[1] and waitingToStart(claim[2], tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)) then
    return tonumber(claim[2])
end
return -1

-- The due time of a pending task, counting one claimed ahead of its due time that has not started.
-- Runs after task-revoke.lua.
--
-- KEYS[1]  due zset
-- KEYS[2]  meta hash (c:<id> claim token, d:<id> due time of a task claimed ahead)
-- ARGV[1]  task id
-- Reads Redis's clock with redisClock (redis-clock.lua, a prelude).
--
-- Returns  the due time (epoch ms); -1 when no such task is pending.
local id = ARGV[1]
local score = redis.call('zscore', KEYS[1], id)
if score then
    -- A task deferred by its queue's limits is scored 1e15 past its due time (task-limits.lua).
    score = tonumber(score)
    return (score >= 1e15) and (score - 1e15) or score
end
local _, now = redisClock()
local _, due = waitingClaim(KEYS[2], id, now)
return due or -1

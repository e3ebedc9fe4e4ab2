-- Cancels a task that will then not run: a pending one, or one claimed ahead of its due time whose
-- consumer has not confirmed its start (the claim is revoked, and that confirmation fails). A task
-- whose handler runs, or whose start is confirmed, is left as it is. Runs after task-batch.lua
-- (metaFields) and task-revoke.lua (waitingClaim, revoke).
--
-- KEYS[1]  due zset
-- KEYS[2]  tasks hash
-- KEYS[3]  in-flight zset
-- KEYS[4]  meta hash (a:<id> attempts, c:<id> claim token, e:<id> last error, d:<id> due time of a
--          task claimed ahead)
-- ARGV[1]  task id
-- ARGV[2]  the queue's channel
-- Reads Redis's clock with redisClock (redis-clock.lua, a prelude).
--
-- Returns  1 when the task was cancelled and will not run; 0 when there was no such task, or it runs.
local id = ARGV[1]
if redis.call('zrem', KEYS[1], id) == 1 then
    -- Pending: it will not run.
    redis.call('hdel', KEYS[2], id)
    redis.call('hdel', KEYS[4], unpack(metaFields({id})))
    return 1
end
if redis.call('zscore', KEYS[3], id) == false then
    return 0
end
local _, now = redisClock()
local token = waitingClaim(KEYS[4], id, now)
if not token then
    -- Its handler runs, or its start is confirmed: cancelling cannot stop it, so nothing changes.
    return 0
end
-- Claimed ahead and not started: its consumer's confirmation of the start will fail.
revoke(ARGV[2], token, id)
redis.call('zrem', KEYS[3], id)
redis.call('hdel', KEYS[2], id)
redis.call('hdel', KEYS[4], unpack(metaFields({id})))
return 1

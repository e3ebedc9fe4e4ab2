-- Cancels a task, pending or in flight (a delivery under way then fails to acknowledge; one claimed
-- ahead that has not started is revoked, so its consumer drops it). Runs after task-batch.lua
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
-- Returns  1 when the task existed; 0 otherwise.
local id = ARGV[1]
local existed = redis.call('hdel', KEYS[2], id)
redis.call('zrem', KEYS[1], id)
if redis.call('zrem', KEYS[3], id) == 1 then
    local _, now = redisClock()
    local token = waitingClaim(KEYS[4], id, now)
    if token then
        revoke(ARGV[2], token, id)
    end
end
redis.call('hdel', KEYS[4], unpack(metaFields({id})))
return existed

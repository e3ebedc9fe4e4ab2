-- Moves the due time of a pending task. A task in flight is not moved, unless it was claimed ahead
-- of its due time and has not started: that claim is revoked (its consumer drops it, and the
-- delivery does not count as an attempt) and the task is pending again. Runs after
-- task-claim-state.lua and task-revoke.lua.
--
-- KEYS[1]  due zset
-- KEYS[2]  tasks hash
-- KEYS[3]  in-flight zset
-- KEYS[4]  meta hash (the claim, a:<id> and c:<id> or x:<id> (task-claim-state.lua, a prelude),
--          e:<id> last error, d:<id> due time of a task claimed ahead)
-- ARGV[1]  task id
-- ARGV[2]  'in': ARGV[3] is a delay in ms from Redis's clock; 'at': ARGV[3] is an epoch ms
-- ARGV[3]  the delay or the due time
-- ARGV[4]  the queue's channel (a wake-up message is the µs until the task it announces is due)
-- Reads Redis's clock with redisClock (redis-clock.lua, a prelude).
--
-- Returns  the new due time (epoch ms); -1 when no such task is pending.
local id = ARGV[1]
local micros, now = redisClock()
if redis.call('zscore', KEYS[1], id) == false then
    local token, _, deliveries = waitingClaim(KEYS[4], id, now)
    if not token then
        return -1
    end
    revoke(ARGV[4], token, id)
    redis.call('zrem', KEYS[3], id)
    -- The claim counted an attempt that never started.
    releaseClaim(KEYS[4], id, deliveries - 1)
end
local due = tonumber(ARGV[3])
if ARGV[2] == 'in' then
    due = now + due
end
local head = redis.call('zrange', KEYS[1], 0, 0, 'WITHSCORES')
redis.call('zadd', KEYS[1], due, id)
if head[2] == nil or due < tonumber(head[2]) or head[1] == id then
    redis.call('publish', ARGV[4], string.format('%d', math.max(0, due * 1000 - micros)))
end
return due

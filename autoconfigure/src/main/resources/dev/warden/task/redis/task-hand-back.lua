-- Hands back tasks that a consumer claimed and has not started: those a stopping consumer claimed
-- ahead of their due time, and, when asked, tasks claimed to run at once that waited for a handler
-- thread until the consumer gave them up. Each is pending again, at its own due time (ahead) or now,
-- its claim gone and not counted as a delivery, and the queue's consumers are told, so that another
-- instance runs it then rather than after the visibility timeout.
--
-- KEYS[1]  due zset
-- KEYS[2]  in-flight zset
-- KEYS[3]  meta hash (the claim, a:<id> and c:<id> or x:<id> (task-claim-state.lua, a prelude),
--          d:<id> due time of a task claimed ahead)
-- ARGV[1]  the queue's wake-up channel
-- ARGV[2]  1 to hand back tasks claimed to run at once too (the caller knows they did not start);
--          0 for tasks claimed ahead only (one without d:<id> has started)
-- ARGV[3]… pairs: task id, the claim token it was claimed under
-- Reads Redis's clock with redisClock (redis-clock.lua, a prelude).
--
-- Returns  how many tasks were handed back; one whose claim no longer matches (cancelled,
--          rescheduled, replaced meanwhile) is left as it is.
local micros, now = redisClock()
local atOnceToo = ARGV[2] == '1'
local handedBack = 0
local earliest = nil
for i = 3, #ARGV - 1, 2 do
    local id = ARGV[i]
    local deliveries = standingClaim(KEYS[3], id, ARGV[i + 1])
    local aheadDue = deliveries and redis.call('hget', KEYS[3], 'd:' .. id)
    if deliveries and not aheadDue and atOnceToo then
        aheadDue = now
    end
    if aheadDue then
        local due = tonumber(aheadDue)
        redis.call('zrem', KEYS[2], id)
        -- The claim counted an attempt that never started.
        releaseClaim(KEYS[3], id, deliveries - 1)
        redis.call('zadd', KEYS[1], due, id)
        handedBack = handedBack + 1
        if earliest == nil or due < earliest then
            earliest = due
        end
    end
end
if earliest ~= nil then
    redis.call('publish', ARGV[1], string.format('%d', math.max(0, earliest * 1000 - micros)))
end
return handedBack

-- Hands back tasks that a stopping consumer claimed ahead of their due time and has not started:
-- each is pending again at its own due time, its claim gone and not counted as a delivery, and the
-- queue's consumers are told, so another instance runs it when it is due rather than after the
-- visibility timeout.
--
-- KEYS[1]  due zset
-- KEYS[2]  in-flight zset
-- KEYS[3]  meta hash (the claim, a:<id> and c:<id> or x:<id> (task-claim-state.lua, a prelude),
--          d:<id> due time of a task claimed ahead)
-- ARGV[1]  the queue's wake-up channel
-- ARGV[2]… pairs: task id, the claim token it was claimed ahead under
-- Reads Redis's clock with redisClock (redis-clock.lua, a prelude).
--
-- Returns  how many tasks were handed back; one whose claim no longer matches (cancelled,
--          rescheduled, replaced meanwhile) is left as it is.
local micros = redisClock()
local handedBack = 0
local earliest = nil
for i = 2, #ARGV - 1, 2 do
    local id = ARGV[i]
    local deliveries = standingClaim(KEYS[3], id, ARGV[i + 1])
    local aheadDue = deliveries and redis.call('hget', KEYS[3], 'd:' .. id)
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

-- Records a failed delivery: schedules the task again after a backoff, or moves it to the dead
-- letters when it has used its attempts (or when the failure is final, such as an unreadable
-- payload). Only if the delivery is still the current one. Runs after task-batch.lua (metaFields).
--
-- KEYS[1]  due zset
-- KEYS[2]  tasks hash
-- KEYS[3]  in-flight zset
-- KEYS[4]  meta hash (the claim, a:<id> and c:<id> or x:<id> (task-claim-state.lua, a prelude),
--          e:<id> last error, d:<id> due time of a task claimed ahead)
-- KEYS[5]  dead letters hash
-- KEYS[6]  dead letters by failure time: zset, task id -> failedAt (ms)
-- ARGV[1]  task id
-- ARGV[2]  the delivery's claim token
-- ARGV[3]  backoff in ms before the next attempt; -1 for a final failure
-- ARGV[4]  the error, as text
-- ARGV[5]  max attempts
-- ARGV[6]  the queue's wake-up channel (a message is the µs until the task it announces is due)
-- ARGV[7]  dead-letter retention in ms: dead letters that failed longer ago are removed (at most
--          100 per call) when a task becomes one; -1 keeps them
-- With task limits, three more keys: KEYS[7] slots, KEYS[8] parked, KEYS[9] wakes zsets
-- (task-limits.lua, a prelude): the task frees its key's slot, and a deferred task of that key is
-- due in its place.
-- Reads Redis's clock with redisClock (redis-clock.lua, a prelude); ends the delivery with
-- task-end.lua's helpers.
--
-- Returns  1 rescheduled; 2 moved to the dead letters; 0 the claim no longer matches (unchanged).
local id = ARGV[1]
local attempts = standingClaim(KEYS[4], id, ARGV[2])
if attempts == nil then
    return 0
end
local micros, now = redisClock()
endDelivery(KEYS, id, now, ARGV[6])
local backoff = tonumber(ARGV[3])
if backoff < 0 or attempts >= tonumber(ARGV[5]) then
    buryTask(KEYS, id, attempts, ARGV[4], now, tonumber(ARGV[7]))
    return 2
end
redis.call('hset', KEYS[4], 'e:' .. id, ARGV[4])
-- Rounded up: the next attempt comes no sooner than the backoff after this failure.
dueAgain(KEYS, id, attempts, math.ceil(micros / 1000) + backoff, micros, ARGV[6])
return 1

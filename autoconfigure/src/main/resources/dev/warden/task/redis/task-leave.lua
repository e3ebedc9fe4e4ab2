-- Leaves a claimed task for an instance that can read it: the task needs a stored format this
-- instance does not read (n:<id>), or its payload is of a later version than this instance's
-- handler knows. It goes back in the queue, due again after a recheck delay, without spending an
-- attempt; the first time it is left is kept (l:<id>), and once it has been left for longer than the
-- grace it becomes a dead letter with the reason, which an instance that reads it re-drives. Only
-- if the delivery is still the current one. Runs after task-batch.lua (metaFields,
-- deadLetterRecord).
--
-- KEYS[1]  due zset
-- KEYS[2]  tasks hash
-- KEYS[3]  in-flight zset
-- KEYS[4]  meta hash (the claim, a:<id> and c:<id> or x:<id> (task-claim-state.lua, a prelude),
--          e:<id> last error, l:<id> when it was first left, by Redis's clock in ms)
-- KEYS[5]  dead letters hash
-- KEYS[6]  dead letters by failure time: zset
-- ARGV[1]  task id
-- ARGV[2]  the delivery's claim token
-- ARGV[3]  ms until it is due again
-- ARGV[4]  the grace in ms: left for longer, it becomes a dead letter
-- ARGV[5]  why it is left, as text
-- ARGV[6]  the queue's wake-up channel
-- ARGV[7]  dead-letter retention in ms; -1 keeps them
-- With task limits, three more keys: KEYS[7] slots, KEYS[8] parked, KEYS[9] wakes zsets: a slot the
-- task held is freed (task-limits.lua, a prelude).
-- Reads Redis's clock with redisClock (redis-clock.lua, a prelude); ends the delivery with
-- task-end.lua's helpers.
--
-- Returns  1 left in the queue; 2 moved to the dead letters; 0 the claim no longer matches.
local id = ARGV[1]
local deliveries = standingClaim(KEYS[4], id, ARGV[2])
if deliveries == nil then
    return 0
end
local micros, now = redisClock()
endDelivery(KEYS, id, now, ARGV[6])
-- The claim counted a delivery; this one does not count.
local attempts = math.max(0, deliveries - 1)
local since = tonumber(redis.call('hget', KEYS[4], 'l:' .. id)) or now
if now - since >= tonumber(ARGV[4]) then
    buryTask(KEYS, id, attempts, 'left by instances that cannot read it for ' .. (now - since) .. ' ms: ' .. ARGV[5],
        now, tonumber(ARGV[7]))
    return 2
end
redis.call('hset', KEYS[4], 'e:' .. id, ARGV[5], 'l:' .. id, since)
dueAgain(KEYS, id, attempts, math.ceil(micros / 1000) + tonumber(ARGV[3]), micros, ARGV[6])
return 1

-- Starts a claimed task of a queue with task limits, or defers it: the task starts when its key
-- has a free slot (fewer than the concurrency limit of its tasks running) and the rate allows a
-- start (the generic cell rate algorithm, as rate-acquire.lua, per key). A deferred task leaves
-- the in-flight set, its claim and its attempt undone, and waits, parked, until its key has room
-- (task-limits.lua). Like task-start.lua, it also confirms the start of a task claimed ahead. Runs
-- after task-limits.lua.
--
-- KEYS[1]  due zset
-- KEYS[2]  in-flight zset
-- KEYS[3]  meta hash (the claim, a:<id> and c:<id> or x:<id> (task-claim-state.lua, a prelude),
--          d:<id> due time of a task claimed ahead, k:<id> the key whose slot a running task holds)
-- KEYS[4]  slots zset
-- KEYS[5]  rates zset: key -> the time (µs) at which its rate allows a full burst again; a key
--          whose time has passed is dropped, and the zset expires when the last one's passes
-- KEYS[6]  parked zset
-- KEYS[7]  wakes zset
-- ARGV[1]  task id
-- ARGV[2]  the delivery's claim token
-- ARGV[3]  the task's key
-- ARGV[4]  the task's due time (ms): where it waits among its key's deferred tasks
-- ARGV[5]  how many tasks of a key may run at once; 0 for no limit
-- ARGV[6]  the interval between two starts of a key, µs (may be fractional); 0 for no rate limit
-- ARGV[7]  the rate's burst: how many starts a key that waited long enough may make at once
-- ARGV[8]  the queue's wake-up channel: told how many µs until a deferred task's key has room, when
--          that is sooner than its key's wake-up so far
-- Reads Redis's clock with redisClock (redis-clock.lua, a prelude).
--
-- Returns  {1} the task starts; {0} its claim no longer stands (cancelled, replaced, redelivered:
--          the consumer drops it); {2, 'concurrency' or 'rate'} it is deferred.
local id = ARGV[1]
local key = ARGV[3]
local deliveries = standingClaim(KEYS[3], id, ARGV[2])
if deliveries == nil then
    return {0}
end
local micros, now = redisClock()
local concurrency = tonumber(ARGV[5])
local interval = tonumber(ARGV[6])
local member = key .. '\0' .. id
local deferral = nil
-- When to look at the key again if the task is deferred (ms).
local wakeAt = nil

-- A delivery again after its claim lapsed keeps the slot its task held.
if concurrency > 0 and not redis.call('zscore', KEYS[4], member) then
    local from, to = keyRange(key)
    local running = 0
    for _, slot in ipairs(redis.call('zrangebylex', KEYS[4], from, to)) do
        local deadline = slotDeadline(KEYS[4], KEYS[2], slot)
        if deadline then
            running = running + 1
            if wakeAt == nil or deadline < wakeAt then
                wakeAt = deadline
            end
        end
    end
    if running >= concurrency then
        deferral = 'concurrency'
    end
end

local tat = nil
if deferral == nil and interval > 0 then
    redis.call('zremrangebyscore', KEYS[5], '-inf', micros)
    tat = math.max(tonumber(redis.call('zscore', KEYS[5], key) or 0), micros)
    local wait = tat + interval - tonumber(ARGV[7]) * interval - micros
    if wait > 0 then
        deferral = 'rate'
        wakeAt = math.ceil((micros + wait) / 1000)
    end
end

if deferral ~= nil then
    local due = tonumber(ARGV[4])
    redis.call('zrem', KEYS[2], id)
    redis.call('zrem', KEYS[4], member)
    redis.call('hdel', KEYS[3], 'k:' .. id)
    -- The claim counted an attempt that never started.
    releaseClaim(KEYS[3], id, deliveries - 1)
    redis.call('zadd', KEYS[1], PARKED + due, id)
    redis.call('zadd', KEYS[6], 0, key .. '\0' .. string.format('%015d', due) .. '\0' .. id)
    if wakeAt ~= nil and wakeKeyAt(KEYS[7], key, wakeAt) then
        redis.call('publish', ARGV[8], string.format('%d', math.max(0, wakeAt * 1000 - micros)))
    end
    return {2, deferral}
end

if concurrency > 0 then
    redis.call('zadd', KEYS[4], 0, member)
    redis.call('hset', KEYS[3], 'k:' .. id, key)
end
if tat ~= nil then
    redis.call('zadd', KEYS[5], tat + interval, key)
    -- The zset goes when the last of its keys could burst again: nothing is left behind.
    local last = redis.call('zrange', KEYS[5], -1, -1, 'WITHSCORES')
    redis.call('pexpire', KEYS[5], math.ceil((tonumber(last[2]) - micros) / 1000) + 1)
    -- A key with deferred tasks left is looked at again when its rate allows the next start.
    local from, to = keyRange(key)
    if #redis.call('zrangebylex', KEYS[6], from, to, 'LIMIT', 0, 1) > 0 then
        local nextWait = math.max(0, tat + 2 * interval - tonumber(ARGV[7]) * interval - micros)
        local at = math.ceil((micros + nextWait) / 1000)
        if wakeKeyAt(KEYS[7], key, at) then
            redis.call('publish', ARGV[8], string.format('%d', math.max(0, at * 1000 - micros)))
        end
    end
end
redis.call('hdel', KEYS[3], 'd:' .. id)
return {1}

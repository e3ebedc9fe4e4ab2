-- Helpers for queues with task limits (TaskLimits): task-admit.lua, and task-claim.lua and
-- task-fail.lua when the consumer has limits. Put in front of those scripts when they are loaded
-- (LuaScript's preludes); it touches no key by itself.
--
-- A running task of a limited queue holds a slot of its key: a member '<key>\0<id>' of the slots
-- zset (all scores 0, so a key's slots are one lexical range), and its key in the meta hash
-- (k:<id>). A slot whose task is no longer in flight (cancelled while it ran, say) is stale and is
-- dropped when its key's slots are counted.
--
-- A deferred task stays in the due zset, scored PARKED + its due time: beyond any due time, so no
-- claim takes it, and cancel, reschedule and replace find it where they find any pending task. The
-- parked zset indexes the deferred tasks by key, in due order: members
-- '<key>\0<due ms, 15 digits>\0<id>'. An entry whose task was cancelled or rescheduled meanwhile
-- no longer matches the task's score and is dropped when it comes up. The wakes zset holds, per
-- key with deferred tasks, when to look at that key again without a running task of it ending:
-- when the rate allows a start, or when the first of its running tasks' claims would lapse.
--
-- Invariant: every key with entries in the parked zset has a wake-up. A deferral sets one; only a
-- wake-up that comes removes one (wakeKeys), and it sets the next while entries are left: the
-- tasks it makes due are admitted or deferred again only once a claim takes them, and one that is
-- cancelled, rescheduled, replaced or handed back before that never is, so nothing else would
-- look at the key's other deferred tasks. Scripts that cancel, reschedule, replace, fail or
-- dead-letter tasks then need not know whether a task was made due by a wake-up.

local PARKED = 1e15

-- The lexical range of one key's members in the slots and parked zsets.
local function keyRange(key)
    return '[' .. key .. '\0', '[' .. key .. '\0\255'
end

-- Sets key's wake-up at the given time (ms), unless it has an earlier one. Returns whether it set it.
local function wakeKeyAt(wakes, key, at)
    local current = redis.call('zscore', wakes, key)
    if current == false or at < tonumber(current) then
        redis.call('zadd', wakes, at, key)
        return true
    end
    return false
end

-- Makes up to n deferred tasks of key due again, earliest first, at their own due times (ahead of
-- the tasks due later); drops the entries of tasks that left. A key with entries still to look at
-- after a bounded number gets a wake-up now. Returns how many tasks became due.
local function promote(due, parked, wakes, key, n, now)
    local from, to = keyRange(key)
    local budget = n + 32
    local entries = redis.call('zrangebylex', parked, from, to, 'LIMIT', 0, budget)
    local promoted = 0
    for _, entry in ipairs(entries) do
        if promoted >= n then
            return promoted
        end
        redis.call('zrem', parked, entry)
        local at = tonumber(string.sub(entry, #key + 2, #key + 16))
        local id = string.sub(entry, #key + 18)
        local score = redis.call('zscore', due, id)
        if score and tonumber(score) == PARKED + at then
            redis.call('zadd', due, at, id)
            promoted = promoted + 1
        end
    end
    if #entries == budget and promoted < n then
        wakeKeyAt(wakes, key, now)
    end
    return promoted
end

-- Frees the slots of tasks that ended (ids, with their k:<id> values, false for a task that held
-- none) and makes one deferred task of each such key due in its place. Returns how many became due.
local function releaseSlots(slots, due, parked, wakes, ids, keysOfIds, now)
    local promoted = 0
    for i, id in ipairs(ids) do
        local key = keysOfIds[i]
        if key then
            redis.call('zrem', slots, key .. '\0' .. id)
            promoted = promoted + promote(due, parked, wakes, key, 1, now)
        end
    end
    return promoted
end

-- The claim deadline of a slot's task while it is in flight; a slot whose task is not (it was
-- cancelled or replaced while it ran) is dropped, and nil returned.
local function slotDeadline(slots, inflight, slot)
    local separator = string.find(slot, '\0', 1, true)
    local deadline = separator and redis.call('zscore', inflight, string.sub(slot, separator + 1))
    if not deadline then
        redis.call('zrem', slots, slot)
        return nil
    end
    return tonumber(deadline)
end

-- Looks at up to two slots picked at random, so that stale slots do not outlive their tasks whether
-- or not their key is counted again.
local function dropStaleSlots(slots, inflight)
    for _, slot in ipairs(redis.call('zrandmember', slots, 2)) do
        slotDeadline(slots, inflight, slot)
    end
end

-- The keys whose wake-up time came: each gets up to n of its deferred tasks due again, and, while it
-- has deferred tasks left, its next wake-up recheck ms from now (or sooner, when promote asks for
-- one now): should none of the tasks made due reach its admission, which sets the key's wake-up as
-- its limits say, the key is looked at again then. Returns how many became due.
local function wakeKeys(due, parked, wakes, now, n, recheck)
    local woken = redis.call('zrangebyscore', wakes, '-inf', now, 'LIMIT', 0, 16)
    local promoted = 0
    for _, key in ipairs(woken) do
        redis.call('zrem', wakes, key)
        promoted = promoted + promote(due, parked, wakes, key, n, now)
        local from, to = keyRange(key)
        if #redis.call('zrangebylex', parked, from, to, 'LIMIT', 0, 1) > 0 then
            wakeKeyAt(wakes, key, now + recheck)
        end
    end
    return promoted
end

-- Helpers of the scripts that end a delivery without completing it: a failure (task-fail.lua) and a
-- task left for an instance that reads it (task-leave.lua). Both take the task out of flight, free
-- its task-limit slot, and either bury it among the dead letters or make it due again. Put in front
-- of those scripts after task-batch.lua (metaFields, deadLetterRecord), task-dead.lua
-- (trimDeadLetters), task-limits.lua (releaseSlots) and task-claim-state.lua (releaseClaim); it
-- touches no key by itself.
--
-- Each takes the keys of its script, in their order: due, tasks, in-flight, meta, dead letters, dead
-- letters by failure time, and with task limits the slots, parked and wakes zsets.

-- Takes the delivery of task id out of flight; with task limits its key's slot is freed, and when a
-- deferred task of that key became due in its place the queue's channel is told.
local function endDelivery(keys, id, now, channel)
    redis.call('zrem', keys[3], id)
    if #keys > 6 then
        local key = redis.call('hget', keys[4], 'k:' .. id)
        if key and releaseSlots(keys[7], keys[1], keys[8], keys[9], {id}, {key}, now) > 0 then
            redis.call('publish', channel, '0')
        end
    end
end

-- Moves task id to the dead letters with its attempts and the reason, dropping its payload and meta
-- fields; dead letters older than the retention (ms, -1 keeps them) go, at most 100 at a time.
local function buryTask(keys, id, attempts, reason, now, retention)
    redis.call('hset', keys[5], id, deadLetterRecord(keys[4], id, redis.call('hget', keys[2], id), attempts,
        reason, now))
    redis.call('zadd', keys[6], now, id)
    if retention >= 0 then
        trimDeadLetters(keys[5], keys[6], now - retention, 100)
    end
    redis.call('hdel', keys[2], id)
    redis.call('hdel', keys[4], unpack(metaFields({id})))
end

-- Makes task id due again at due (epoch ms), with deliveries counted so far, dropping what tied it to
-- the delivery that ended; when it becomes the queue's earliest, its delay in µs is published on the
-- channel.
local function dueAgain(keys, id, deliveries, due, micros, channel)
    releaseClaim(keys[4], id, deliveries)
    redis.call('hdel', keys[4], 'k:' .. id)
    local head = redis.call('zrange', keys[1], 0, 0, 'WITHSCORES')
    redis.call('zadd', keys[1], due, id)
    if head[2] == nil or due < tonumber(head[2]) then
        redis.call('publish', channel, string.format('%d', math.max(0, due * 1000 - micros)))
    end
end

-- Moves a dead letter back into the queue, due now, with its attempts reset.
--
-- KEYS[1]  dead letters hash
-- KEYS[2]  due zset
-- KEYS[3]  tasks hash
-- KEYS[4]  dead letters by failure time: zset
-- KEYS[5]  meta hash: the stored format the task needs (n:<id>) and a later version's state of it
--          (x:<id>) come back from the record (task-batch.lua's deadLetterRecord)
-- ARGV[1]  task id
-- ARGV[2]  the queue's wake-up channel (a message is the µs until the task it announces is due)
-- Reads Redis's clock with redisClock (redis-clock.lua, a prelude); restoreKept is task-dead.lua's.
--
-- Returns  1 requeued; 0 no such dead letter; -1 a task of that id is pending again (unchanged).
local record = redis.call('hget', KEYS[1], ARGV[1])
if not record then
    return 0
end
if redis.call('hexists', KEYS[3], ARGV[1]) == 1 then
    return -1
end
local letter = cjson.decode(record)
local _, now = redisClock()
redis.call('hset', KEYS[3], ARGV[1], letter.payload)
restoreKept(KEYS[5], ARGV[1], letter)
redis.call('zadd', KEYS[2], now, ARGV[1])
redis.call('hdel', KEYS[1], ARGV[1])
redis.call('zrem', KEYS[4], ARGV[1])
redis.call('publish', ARGV[2], '0')
return 1

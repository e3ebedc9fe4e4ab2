-- Puts back in the queue, due now with their attempts reset, up to a limit of the dead letters that
-- failed within a time range. A dead letter whose id is pending again is left where it is.
--
-- KEYS[1]  dead letters hash
-- KEYS[2]  dead letters by failure time: zset
-- KEYS[3]  due zset
-- KEYS[4]  tasks hash
-- KEYS[5]  meta hash: what each record kept of the task's meta fields comes back (restoreKept)
-- ARGV[1]  from (epoch ms, inclusive)
-- ARGV[2]  to (epoch ms, exclusive)
-- ARGV[3]  how many at most
-- ARGV[4]  the queue's wake-up channel
-- Reads Redis's clock with redisClock (redis-clock.lua, a prelude); indexes dead letters kept before
-- the index existed with indexDeadLetters (task-dead.lua, a prelude).
--
-- Returns  {requeued, examined}: examined below the limit means the range is done.
indexDeadLetters(KEYS[1], KEYS[2], 1000)
local _, now = redisClock()
local ids = redis.call('zrangebyscore', KEYS[2], ARGV[1], '(' .. ARGV[2], 'LIMIT', 0, tonumber(ARGV[3]))
local requeued = 0
for _, id in ipairs(ids) do
    local record = redis.call('hget', KEYS[1], id)
    if record and redis.call('hexists', KEYS[4], id) == 0 then
        local letter = cjson.decode(record)
        redis.call('hset', KEYS[4], id, letter.payload)
        restoreKept(KEYS[5], id, letter)
        redis.call('zadd', KEYS[3], now, id)
        redis.call('hdel', KEYS[1], id)
        redis.call('zrem', KEYS[2], id)
        requeued = requeued + 1
    elseif not record then
        redis.call('zrem', KEYS[2], id)
    end
end
if requeued > 0 then
    redis.call('publish', ARGV[4], '0')
end
return {requeued, #ids}

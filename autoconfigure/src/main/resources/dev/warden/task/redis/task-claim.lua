-- Claims due tasks for one consumer: each moves to the in-flight set with a visibility deadline.
-- Tasks whose deadline passed (their consumer died) are claimed again first.
--
-- KEYS[1]  due zset
-- KEYS[2]  tasks hash
-- KEYS[3]  in-flight zset
-- KEYS[4]  attempts hash
-- KEYS[5]  claims hash
-- KEYS[6]  errors hash
-- KEYS[7]  dead letters: hash, task id -> JSON {id, payload, attempts, error, failedAt}
-- ARGV[1]  how many tasks to claim at most
-- ARGV[2]  visibility timeout in ms
-- ARGV[3]  consumer id (claim tokens are <consumer id>:<attempt>)
-- ARGV[4]  max deliveries: a task claimed more often goes to the dead letters instead
--
-- Returns  {now, wake, id1, payload1, attempt1, token1, id2, ...}: now is Redis's clock; wake is
--          how many ms until the next task is due or the next deadline passes (-1: nothing pending).
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local limit = tonumber(ARGV[1])
local deadline = now + tonumber(ARGV[2])
local maxDeliveries = tonumber(ARGV[4])
local out = {now, -1}
local claimed = 0
for _, source in ipairs({KEYS[3], KEYS[1]}) do
    if claimed < limit then
        local ids = redis.call('zrangebyscore', source, '-inf', now, 'LIMIT', 0, limit - claimed)
        for _, id in ipairs(ids) do
            redis.call('zrem', source, id)
            local payload = redis.call('hget', KEYS[2], id)
            if payload then
                local attempt = redis.call('hincrby', KEYS[4], id, 1)
                if attempt > maxDeliveries then
                    local error = redis.call('hget', KEYS[6], id) or 'no acknowledgement'
                    redis.call('hset', KEYS[7], id, cjson.encode({id = id, payload = payload,
                        attempts = attempt - 1, error = 'gave up after ' .. (attempt - 1)
                            .. ' deliveries; last: ' .. error, failedAt = now}))
                    redis.call('hdel', KEYS[2], id)
                    redis.call('hdel', KEYS[4], id)
                    redis.call('hdel', KEYS[5], id)
                    redis.call('hdel', KEYS[6], id)
                else
                    local token = ARGV[3] .. ':' .. attempt
                    redis.call('hset', KEYS[5], id, token)
                    redis.call('zadd', KEYS[3], deadline, id)
                    out[#out + 1] = id
                    out[#out + 1] = payload
                    out[#out + 1] = attempt
                    out[#out + 1] = token
                    claimed = claimed + 1
                end
            end
        end
    end
end
local next = nil
for _, source in ipairs({KEYS[1], KEYS[3]}) do
    local head = redis.call('zrange', source, 0, 0, 'WITHSCORES')
    if head[2] ~= nil and (next == nil or tonumber(head[2]) < next) then
        next = tonumber(head[2])
    end
end
if next ~= nil then
    out[2] = math.max(0, next - now)
end
return out

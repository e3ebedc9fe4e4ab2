-- Acquires a fair lock: first come, first served (the layout of Redisson's fair RLock).
--
-- KEYS[1]  the lock hash (owner id -> hold count)
-- KEYS[2]  the waiters' queue: a list of owner ids, redisson_lock_queue:{name}
-- KEYS[3]  the waiters' deadlines: a zset owner id -> epoch ms, redisson_lock_timeout:{name}
-- KEYS[4]  the fencing counter of the lock's hash slot, <namespace>_fencing:{<tag>} (warden_fencing:{<tag>} by default)
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  owner id
-- ARGV[3]  how long a waiter keeps its place once its turn could have come, in ms
-- ARGV[4]  '1' to join the queue when the lock is not free, '0' to try once without queueing
-- ARGV[5]  '1' to take a fencing token, '0' not to
-- Runs after fencing-token.lua, which defines holdToken.
-- Drops expired waiters with dropExpiredWaiters (fair-queue.lua, a prelude).
-- Reads Redis's clock with redisClock (redis-clock.lua, a prelude).
--
-- Returns  the token (>= 1, or 0 when none was asked for) when acquired; -2 - ttl otherwise (< 0),
--          ttl being how long in ms until this waiter's turn may come (the lock's PTTL, or the time
--          left to the waiter ahead of it; -1 when unknown).

-- Not acquired, with ttl; a negative ttl (no expiry, no lock) means unknown.
local function notAcquired(ttl)
    return -2 - math.max(-1, ttl)
end

local _, now = redisClock()
dropExpiredWaiters(KEYS[2], KEYS[3], now)
if redis.call('exists', KEYS[1]) == 0
        and (redis.call('exists', KEYS[2]) == 0 or redis.call('lindex', KEYS[2], 0) == ARGV[2]) then
    redis.call('lpop', KEYS[2])
    redis.call('zrem', KEYS[3], ARGV[2])
    -- Everyone behind moved up one place: their deadlines come one waiter's time sooner.
    for _, waiter in ipairs(redis.call('zrange', KEYS[3], 0, -1)) do
        redis.call('zincrby', KEYS[3], -tonumber(ARGV[3]), waiter)
    end
    redis.call('hset', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return holdToken(KEYS[1], ARGV[2], KEYS[4], ARGV[5])
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return holdToken(KEYS[1], ARGV[2], KEYS[4], ARGV[5])
end
if ARGV[4] ~= '1' then
    return notAcquired(redis.call('pttl', KEYS[1]))
end
if redis.call('zscore', KEYS[3], ARGV[2]) ~= false then
    -- Already queued: its turn may come when the waiter ahead of it times out, or, at the head,
    -- when the lock's lease runs out.
    local position = redis.call('lpos', KEYS[2], ARGV[2])
    if position ~= false and position > 0 then
        local ahead = redis.call('zscore', KEYS[3], redis.call('lindex', KEYS[2], position - 1))
        if ahead ~= false then
            return notAcquired(math.max(0, tonumber(ahead) - now))
        end
    end
    return notAcquired(math.max(0, redis.call('pttl', KEYS[1])))
end
local last = redis.call('lindex', KEYS[2], -1)
local ttl
if last ~= false and last ~= ARGV[2] and redis.call('zscore', KEYS[3], last) ~= false then
    ttl = tonumber(redis.call('zscore', KEYS[3], last)) - now
else
    ttl = redis.call('pttl', KEYS[1])
end
if redis.call('zadd', KEYS[3], ttl + tonumber(ARGV[3]) + now, ARGV[2]) == 1 then
    redis.call('rpush', KEYS[2], ARGV[2])
end
return notAcquired(ttl)

-- One instance's announcement to the fleet registry: what it is, what it reads and writes, until
-- when it counts as live. Both keys share the hash tag {fleet}; both expire once no member can be
-- live any more, and each call drops a bounded number of expired members, so the registry stays
-- bounded by the live instances (plus those that expired since the last calls).
--
-- KEYS[1]  the instances hash: client id -> announcement ('version=…;reads=…;writes=…;started=…;')
-- KEYS[2]  the expiry zset: client id -> when it stops counting as live, ms by Redis's clock
-- ARGV[1]  the client id
-- ARGV[2]  the announcement without its start ('version=…;reads=…;writes=…;'): fields 'k=v;', each
--          value free of ';' and '='
-- ARGV[3]  how long the announcement holds, ms (three announce intervals)
-- ARGV[4]  when the instance started, ms by Redis's clock; 0 at its first announcement: now
-- ARGV[5]  how many expired members to drop at most
-- Reads Redis's clock with fleetNow and the live members with liveMembers (fleet-live.lua, a prelude).
--
-- Returns  {now ms, started ms, then per live member (this one included): client id, expiry ms,
--          announcement}
local now = fleetNow()
local expired = redis.call('zrangebyscore', KEYS[2], '-inf', '(' .. now, 'LIMIT', 0, tonumber(ARGV[5]))
if #expired > 0 then
    redis.call('hdel', KEYS[1], unpack(expired))
    redis.call('zrem', KEYS[2], unpack(expired))
end
local started = tonumber(ARGV[4])
if started <= 0 then
    started = now
end
redis.call('hset', KEYS[1], ARGV[1], ARGV[2] .. 'started=' .. started .. ';')
redis.call('zadd', KEYS[2], now + tonumber(ARGV[3]), ARGV[1])
-- Both keys live as long as the member that lives longest, then vanish.
local last = redis.call('zrange', KEYS[2], -1, -1, 'WITHSCORES')
local ttl = math.max(1, tonumber(last[2]) - now + 1)
redis.call('pexpire', KEYS[1], ttl)
redis.call('pexpire', KEYS[2], ttl)
return liveMembers(KEYS[1], KEYS[2], now, { now, started })

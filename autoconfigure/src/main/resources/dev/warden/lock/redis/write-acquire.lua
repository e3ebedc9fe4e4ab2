-- Acquires or re-enters the write side of a read-write lock: one writer, no readers but itself.
-- Hands out a fencing token when asked for one. Runs after fencing-token.lua, which defines
-- holdToken.
--
-- KEYS[1]  the lock hash
-- KEYS[2]  the fencing counter of the lock's hash slot (never expires, never reset)
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  the owner's write field, <owner id>:write
-- ARGV[3]  '1' to take a fencing token, '0' not to
--
-- Returns  the token (>= 1, or 0 when none was asked for) when acquired; -2 - pttl otherwise (see
--          lock-acquire.lua).
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
    redis.call('hset', KEYS[1], 'mode', 'write', ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return holdToken(KEYS[1], ARGV[2], KEYS[2], ARGV[3])
end
if mode == 'write' and redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], math.max(redis.call('pttl', KEYS[1]), tonumber(ARGV[1])))
    return holdToken(KEYS[1], ARGV[2], KEYS[2], ARGV[3])
end
return -2 - redis.call('pttl', KEYS[1])

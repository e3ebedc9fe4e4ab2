-- Acquires or re-enters a reentrant lock (the layout of Redisson's RLock), and hands out a fencing
-- token when asked for one.
--
-- KEYS[1]  the lock: a hash, field = owner id, value = that owner's hold count
-- KEYS[2]  the fencing counter of the lock's hash slot (never expires, never reset)
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  owner id, <clientId>:<n>
-- ARGV[3]  '1' to take a fencing token, '0' not to (the counter is then neither read nor created)
--
-- Runs after fencing-token.lua, which defines holdToken.
--
-- Returns  when acquired (the owner's hold count incremented, the lease reset): the hold's token
--          (>= 1; a re-entry returns the token of the hold it re-enters), or 0 when none was asked
--          for;
--          -2 - pttl otherwise (< 0): pttl is the lock's remaining time to live in ms, -1 when the
--          key has no expiry. A single integer, not a pair, is the cheapest reply to read.
if redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return holdToken(KEYS[1], ARGV[2], KEYS[2], ARGV[3])
end
return -2 - redis.call('pttl', KEYS[1])

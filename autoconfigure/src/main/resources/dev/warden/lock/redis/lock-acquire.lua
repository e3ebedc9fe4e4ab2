-- Acquires or re-enters a reentrant lock (the layout of Redisson's RLock), and hands out a fencing
-- token when asked for one.
--
-- KEYS[1]  the lock: a hash, field = owner id, value = that owner's hold count
-- KEYS[2]  the lock's fencing counter (same hash slot; never expires, never reset)
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  owner id, <clientId>:<n>
-- ARGV[3]  '1' to take a fencing token, '0' not to (the counter is then neither read nor created)
--
-- Returns  when acquired (the owner's hold count incremented, the lease reset): the token, the next
--          value of the fencing counter (>= 1), or 0 when none was asked for;
--          -2 - pttl otherwise (< 0): pttl is the lock's remaining time to live in ms, -1 when the
--          key has no expiry. A single integer, not a pair, is the cheapest reply to read.
if redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    if ARGV[3] == '1' then
        return redis.call('incr', KEYS[2])
    end
    return 0
end
return -2 - redis.call('pttl', KEYS[1])

-- Acquires a simple lock: a string at the lock's name whose value is the holder's owner id and whose
-- expiry is the lease. Not reentrant: an owner that finds its own id there is told so, and acquires
-- nothing, unless its client lost the reply of an acquisition by that owner, whose hold it then
-- takes over (with a new lease and token).
--
-- KEYS[1]  the lock: a string, value = owner id, expiring with the lease
-- KEYS[2]  the fencing counter of the lock's hash slot (never expires, never reset)
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  owner id, <clientId>:<n>
-- ARGV[3]  '1' to take a fencing token, '0' not to (the counter is then neither read nor created)
-- ARGV[4]  '1' when the owner's client lost the reply of an earlier acquisition by this owner, so a
--          hold of this owner found here is that one's; '0' otherwise
--
-- Returns  when acquired: the next value of the fencing counter (>= 1), or 0 when no token was asked
--          for;
--          -1 when the owner already holds the lock (nothing changed);
--          -3 - pttl otherwise (<= -2): pttl is the lock's remaining time to live in ms, -1 when the
--          key has no expiry.
local holder = redis.call('get', KEYS[1])
if holder == false or (holder == ARGV[2] and ARGV[4] == '1') then
    redis.call('set', KEYS[1], ARGV[2], 'px', ARGV[1])
    if ARGV[3] == '1' then
        return redis.call('incr', KEYS[2])
    end
    return 0
end
if holder == ARGV[2] then
    return -1
end
return -3 - redis.call('pttl', KEYS[1])

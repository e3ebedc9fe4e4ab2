-- Releases one hold of a reentrant lock (the layout of Redisson's RLock). When that frees the lock,
-- either wakes waiters with message 0 on the lock's channel, or, given a next owner (a sleeping
-- waiter of the releasing client), hands the lock straight to it: the waiter is woken in its own
-- process, so the lock is never free for a moment and no retry is needed.
--
-- KEYS[1]  the lock hash
-- KEYS[2]  the fencing counter of the lock's hash slot
-- ARGV[1]  the releasing owner id, <clientId>:<n>
-- ARGV[2]  the lock's release channel, redisson_lock__channel:{name} (passed as an argument, not a
--          key: a channel has no hash slot)
-- ARGV[3]  the next owner id, or '' to release plainly
-- ARGV[4]  the next owner's lease in milliseconds (ignored without a next owner)
-- ARGV[5]  '1' when the next owner takes a fencing token, '0' when it does not
-- Releases the hold with releaseOneHold (lock-hold.lua, a prelude) and takes the next owner's token
-- with holdToken (fencing-token.lua, a prelude).
--
-- Returns  -1 when the releasing owner holds no hold (never held, expired, or force-released);
--          0 when it still holds the lock (its lease is left as it is);
--          the next fencing token (>= 1) when the lock passed to the next owner with one hold and
--          its lease (nothing published), or -3 when it passed to a next owner that takes no token;
--          -2 when the lock was freed: the key is deleted and message 0 published.
local kept = releaseOneHold(KEYS[1], ARGV[1])
if kept then
    return kept
end
if ARGV[3] == '' then
    redis.call('publish', ARGV[2], '0')
    return -2
end
redis.call('hset', KEYS[1], ARGV[3], 1)
redis.call('pexpire', KEYS[1], ARGV[4])
local token = holdToken(KEYS[1], ARGV[3], KEYS[2], ARGV[5])
return (token > 0) and token or -3

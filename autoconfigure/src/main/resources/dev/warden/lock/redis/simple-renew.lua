-- Extends the lease of a simple lock that the owner still holds (the watchdog's renewal).
--
-- KEYS[1]  the lock: a string, value = owner id
-- ARGV[1]  new lease in milliseconds
-- ARGV[2]  owner id, <clientId>:<n>
--
-- Returns  1 when renewed; 0 when the owner no longer holds the lock (nothing changed).
if redis.call('get', KEYS[1]) == ARGV[2] then
    redis.call('pexpire', KEYS[1], ARGV[1])
    return 1
end
return 0

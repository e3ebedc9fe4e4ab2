-- Completes a delivered task: deletes it everywhere, if the delivery is still the current one.
--
-- KEYS[1]  in-flight zset
-- KEYS[2]  tasks hash
-- KEYS[3]  attempts hash
-- KEYS[4]  claims hash
-- KEYS[5]  errors hash
-- ARGV[1]  task id
-- ARGV[2]  the delivery's claim token
--
-- Returns  1 when completed; 0 when the claim no longer matches (the task was cancelled, replaced,
--          or redelivered after its deadline): nothing is changed.
if redis.call('hget', KEYS[4], ARGV[1]) ~= ARGV[2] then
    return 0
end
redis.call('zrem', KEYS[1], ARGV[1])
redis.call('hdel', KEYS[2], ARGV[1])
redis.call('hdel', KEYS[3], ARGV[1])
redis.call('hdel', KEYS[4], ARGV[1])
redis.call('hdel', KEYS[5], ARGV[1])
return 1

-- Cancels a task, pending or in flight (a delivery under way then fails to acknowledge).
--
-- KEYS[1]  due zset
-- KEYS[2]  tasks hash
-- KEYS[3]  in-flight zset
-- KEYS[4]  meta hash (a:<id> attempts, c:<id> claim token, e:<id> last error)
-- ARGV[1]  task id
--
-- Returns  1 when the task existed; 0 otherwise.
local existed = redis.call('hdel', KEYS[2], ARGV[1])
redis.call('zrem', KEYS[1], ARGV[1])
redis.call('zrem', KEYS[3], ARGV[1])
redis.call('hdel', KEYS[4], 'a:' .. ARGV[1], 'c:' .. ARGV[1], 'e:' .. ARGV[1])
return existed

-- Compare-and-set of one recurring job's plan: its next occurrence and the definition it was planned
-- by, so that of the instances that plan or advance a job at once exactly one does.
--
-- KEYS[1]  the queue's recurring jobs: a hash, field = job name, value = '<due millis> <definition>'
--          (one field per job defined in the application; a job no longer defined is removed when an
--          instance starts)
-- ARGV[1]  the job name
-- ARGV[2]  the value expected now, '' for none
-- ARGV[3]  the new value, '' to remove the field
--
-- Returns  1 when the value was the expected one and is now the new one; 0 otherwise (nothing
--          changed).
local current = redis.call('hget', KEYS[1], ARGV[1]) or ''
if current ~= ARGV[2] then
    return 0
end
if ARGV[3] == '' then
    redis.call('hdel', KEYS[1], ARGV[1])
else
    redis.call('hset', KEYS[1], ARGV[1], ARGV[3])
end
return 1

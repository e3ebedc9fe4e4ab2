-- For CommandLanesTests: appends ARGV[1] to the list KEYS[1] and returns its new length.
return redis.call('rpush', KEYS[1], ARGV[1])

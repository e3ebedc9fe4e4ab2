return redis.call('ECHO', 'probe')

package dev.warden.test.redis;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RedisSentinelTests {

	@Test
	void startsAMasterAReplicaAndThreeSentinelsThatFailOver() {
		try (RedisSentinel redis = RedisSentinel.start()) {
			RedisNode master = redis.master();
			master.call("SET", "k", "v");
			redis.awaitReplicaInSync();

			RedisNode promoted = redis.failover();

			assertThat(promoted).isNotSameAs(master);
			assertThat(redis.master()).isSameAs(promoted);
			assertThat(promoted.call("GET", "k")).isEqualTo("v");
			assertThat((String) promoted.call("INFO", "replication")).contains("role:master");
		}
	}

}

package dev.warden.test;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.core.env.Environment;

import static org.assertj.core.api.Assertions.assertThat;

/** A test that names a Redis of its own keeps it: {@link WardenTest} starts none. */
@SpringBootTest(classes = WardenTestWithOwnRedisTests.Application.class,
		properties = { "spring.data.redis.port=6399", "warden.enabled=false" })
@WardenTest
class WardenTestWithOwnRedisTests {

	@Autowired
	ApplicationContext context;

	@Autowired
	Environment environment;

	@Test
	void itsOwnRedisIsLeftAlone() {
		assertThat(environment.getProperty("spring.data.redis.port")).isEqualTo("6399");
		assertThat(context.getBeansOfType(TestRedis.class)).isEmpty();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Application {

	}

}

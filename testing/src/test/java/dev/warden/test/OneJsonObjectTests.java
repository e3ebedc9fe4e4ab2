package dev.warden.test;

import java.net.URL;
import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A test class path with {@code warden-test} and {@code spring-boot-starter-test}, as an
 * application's, has one {@code org.json.JSONObject}: {@code spring-boot-starter-test}'s. Another
 * (the {@code org.json:json} that embedded-redis's Jedis brings, which {@code warden-test-redis}
 * excludes) makes Spring Boot log a WARN, "Found multiple occurrences of org.json.JSONObject on the
 * class path", at the start of every test context.
 */
class OneJsonObjectTests {

	@Test
	void theClassPathHasOneJsonObject() throws Exception {
		List<URL> found = Collections.list(getClass().getClassLoader().getResources("org/json/JSONObject.class"));
		assertThat(found).as("org/json/JSONObject.class on the class path").hasSizeLessThanOrEqualTo(1);
	}

}

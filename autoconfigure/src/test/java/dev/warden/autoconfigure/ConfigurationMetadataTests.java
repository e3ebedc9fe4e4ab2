package dev.warden.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration metadata IDEs show: every property with a default shows it, and each default it
 * shows is the one {@link WardenProperties} starts with (which it takes from
 * {@link dev.warden.WardenDefaults}), so the documentation cannot drift from the code.
 */
class ConfigurationMetadataTests {

	/**
	 * Properties without a default: a random id, no RedLock nodes, no per-queue options, virtual
	 * threads as Spring's own property says, the recurring queue named after the application, dead
	 * letters kept for good, the replicas to wait for following the master's, no key patterns of
	 * the test's own for warden-test's reset, the annotated locks' key prefix following the namespace,
	 * the command connections following the processors.
	 */
	private static final Set<String> WITHOUT_DEFAULT = Set.of("warden.client-id", "warden.redlock.nodes",
			"warden.delayed-task.queues", "warden.delayed-task.virtual-threads", "warden.recurring.queue",
			"warden.delayed-task.dead-letter-retention", "warden.health.dead-letter-status",
			"warden.lock.replica-sync.replicas", "warden.delayed-task.replica-sync.replicas",
			"warden.test.reset-keys", "warden.lock.key-prefix", "warden.connections");

	@Test
	void everyPropertyShowsTheDefaultItStartsWith() throws IOException {
		Map<String, JsonNode> properties = metadata();
		WardenProperties defaults = new WardenProperties();

		assertThat(properties).hasSizeGreaterThan(WITHOUT_DEFAULT.size());
		properties.forEach((name, property) -> {
			// The warden endpoint's own properties (management.endpoint.warden.*) are Spring Boot's.
			if (WITHOUT_DEFAULT.contains(name) || !name.startsWith("warden.")) {
				return;
			}
			// A property of an earlier version: its replacement shows the default.
			if (property.has("deprecation")) {
				return;
			}
			assertThat(property.has("defaultValue")).as(name + " shows a default").isTrue();
			String shown = property.get("defaultValue").asString();
			WardenProperties bound = new Binder(new MapConfigurationPropertySource(Map.of(name, shown)))
				.bindOrCreate("warden", WardenProperties.class);
			String path = beanPath(name);
			assertThat(new BeanWrapperImpl(bound).getPropertyValue(path)).as(name)
				.isEqualTo(new BeanWrapperImpl(defaults).getPropertyValue(path));
		});
	}

	private static Map<String, JsonNode> metadata() throws IOException {
		try (InputStream json = ConfigurationMetadataTests.class
			.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			assertThat(json).as("the generated metadata").isNotNull();
			List<JsonNode> properties = JsonMapper.builder().build().readTree(json).get("properties").valueStream()
				.toList();
			return properties.stream().collect(Collectors.toMap(property -> property.get("name").asString(),
					property -> property));
		}
	}

	/** {@code warden.delayed-task.claim-ahead} to {@code delayedTask.claimAhead}. */
	private static String beanPath(String name) {
		StringBuilder path = new StringBuilder();
		boolean upper = false;
		for (char c : name.substring("warden.".length()).toCharArray()) {
			if (c == '-') {
				upper = true;
			}
			else {
				path.append(upper ? Character.toUpperCase(c) : c);
				upper = false;
			}
		}
		return path.toString();
	}

}

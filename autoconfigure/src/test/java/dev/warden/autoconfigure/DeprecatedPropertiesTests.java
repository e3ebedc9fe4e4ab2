package dev.warden.autoconfigure;

import java.io.InputStream;

import dev.warden.WardenApplications;
import dev.warden.actuate.WardenAdmin;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A property renamed in a minor version keeps working under its old name for the deprecation
 * period: read as the new one unless that one is set, with one WARN at startup naming the new one,
 * and marked deprecated in the configuration metadata, with its replacement.
 */
@ExtendWith(OutputCaptureExtension.class)
class DeprecatedPropertiesTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void aPropertyUnderItsFormerNameIsReadAsTheNewOneWithAWarningNamingIt(CapturedOutput output) {
		WardenApplications.runner(redis.node())
			.withPropertyValues("warden.actuator.write-operations=true", "warden.actuator.write-scope=all-queues")
			.run(context -> {
				assertThat(context).hasNotFailed();
				WardenProperties properties = context.getBean(WardenProperties.class);
				assertThat(properties.getEndpoint().isWriteOperations()).isTrue();
				assertThat(properties.getEndpoint().getWriteScope()).isEqualTo(WardenAdmin.WriteScope.ALL_QUEUES);
			});
		assertThat(output.getOut()).contains("Property warden.actuator.write-operations is deprecated",
				"set warden.endpoint.write-operations instead",
				"Property warden.actuator.write-scope is deprecated", "set warden.endpoint.write-scope instead");
	}

	@Test
	void theNewNameWinsOverTheFormerWhicheverIsBoundFirst() {
		WardenApplications.runner(redis.node())
			.withPropertyValues("warden.actuator.write-operations=true", "warden.endpoint.write-operations=false",
					"warden.endpoint.write-scope=consumed-queues", "warden.actuator.write-scope=all-queues")
			.run(context -> {
				WardenProperties properties = context.getBean(WardenProperties.class);
				assertThat(properties.getEndpoint().isWriteOperations()).isFalse();
				assertThat(properties.getEndpoint().getWriteScope()).isEqualTo(WardenAdmin.WriteScope.CONSUMED_QUEUES);
			});
	}

	@Test
	void theNewNameAloneWarnsOfNothing(CapturedOutput output) {
		WardenApplications.runner(redis.node())
			.withPropertyValues("warden.endpoint.write-operations=true")
			.run(context -> assertThat(context.getBean(WardenProperties.class).deprecatedInUse()).isEmpty());
		assertThat(output.getOut()).doesNotContain("is deprecated");
	}

	@Test
	void theMetadataMarksTheFormerNamesDeprecatedWithTheirReplacements() throws Exception {
		JsonNode metadata;
		try (InputStream json = DeprecatedPropertiesTests.class
			.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			metadata = JsonMapper.builder().build().readTree(json);
		}
		for (String name : new String[] { "write-operations", "write-scope" }) {
			JsonNode property = metadata.get("properties").valueStream()
				.filter(candidate -> candidate.get("name").asString().equals("warden.actuator." + name))
				.findFirst()
				.orElseThrow();
			assertThat(property.get("deprecation").get("replacement").asString()).isEqualTo("warden.endpoint." + name);
		}
	}

}

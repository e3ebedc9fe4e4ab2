package dev.warden.docs;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static dev.warden.docs.GeneratedPage.cell;
import static dev.warden.docs.GeneratedPage.code;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code docs/configuration.md}: every {@code warden.*} property (and the {@code warden} endpoint's
 * {@code management.endpoint.warden.*}), generated from the configuration metadata on the class path
 * ({@code META-INF/spring-configuration-metadata.json}, which the annotation processor writes from
 * {@code WardenProperties} and merges with {@code additional-spring-configuration-metadata.json};
 * the additional file is read again here, so that a property it adds or completes shows either
 * way). Every property has a description, and a default or a description that says what holds when
 * it is unset.
 */
class ConfigurationReferenceTests {

	private static final GeneratedPage page = new GeneratedPage("configuration.md", "ConfigurationReferenceTests");

	/** The sections, by prefix, with the line that opens each; a property of no section fails the test. */
	private static final Map<String, String> SECTIONS = sections();

	/** What a description says of a property without a default: what holds when it is unset. */
	private static final Pattern UNSET = Pattern.compile("(?i)\\b(unset|by default|defaults to|empty)\\b");

	private static final Pattern QUALIFIED = Pattern.compile("(?:[a-z_][\\w]*\\.)+(?:[\\w]+\\$)*([A-Z][\\w]*)");

	private static Map<String, String> sections() {
		Map<String, String> sections = new LinkedHashMap<>();
		sections.put("warden", "The client as a whole: whether it is configured, its keys' namespace, its checks.");
		sections.put("warden.lock", "Locks: `@DistributedLock` and the locks of the Warden client.");
		sections.put("warden.redlock", "RedLocks: the independent Redis nodes they are taken on.");
		sections.put("warden.delayed-task",
				"Delayed tasks: `DelayedQueue`, `@DelayedTask` and `@RecurringTask` deliveries, their retries, "
						+ "dead letters and transactional outbox.");
		sections.put("warden.recurring", "Recurring tasks: `@RecurringTask`.");
		sections.put("warden.rate-limit", "Rate limits: `@RateLimited`.");
		sections.put("warden.fleet", "The fleet: the Warden instances live on one Redis.");
		sections.put("warden.metrics", "Meters (see [meters.md](meters.md)).");
		sections.put("warden.observations", "Observations (tracing and the observation timers).");
		sections.put("warden.health", "The `warden` health indicator.");
		sections.put("warden.endpoint", "The `warden` Actuator endpoint and its dashboard.");
		sections.put("management.endpoint.warden", "The `warden` endpoint as Spring Boot's Actuator configures every endpoint.");
		sections.put("warden.test", "Tests with `warden-test` (`@WardenTest`, `TaskClock`).");
		sections.put("warden.actuator", "Deprecated: now under `warden.endpoint`.");
		sections.put("warden.dashboard", "No longer supported: the dashboard is a page of the `warden` endpoint.");
		return sections;
	}

	@Test
	void configurationPageListsEveryProperty() throws IOException {
		Map<String, Map<String, Object>> properties = properties();
		assertThat(properties).as("the configuration metadata on the class path").containsKey("warden.enabled");
		page.check(render(properties));
	}

	@Test
	void everyPropertyHasADescriptionAndADefaultOrSaysWhatHoldsUnset() throws IOException {
		List<String> problems = new ArrayList<>();
		properties().forEach((name, property) -> {
			String description = (String) property.get("description");
			if (description == null || description.isBlank()) {
				problems.add(name + " has no description: write the javadoc of its field in WardenProperties, or "
						+ "its description in additional-spring-configuration-metadata.json");
			}
			else if (!property.containsKey("defaultValue") && !property.containsKey("deprecation")
					&& !UNSET.matcher(description).find()) {
				problems.add(name + " has no default: give it one (its field's initial value, or defaultValue in "
						+ "additional-spring-configuration-metadata.json), or say in its description what holds "
						+ "when it is unset");
			}
			if (section(name) == null) {
				problems.add(name + " is in no section of ConfigurationReferenceTests.SECTIONS");
			}
		});
		assertThat(problems).isEmpty();
	}

	/** Warden's properties, by name: the processor's metadata completed by the additional metadata. */
	@SuppressWarnings("unchecked")
	static Map<String, Map<String, Object>> properties() throws IOException {
		Map<String, Map<String, Object>> properties = new TreeMap<>();
		for (Map<String, Object> property : read("META-INF/spring-configuration-metadata.json")) {
			if (isWardens((String) property.get("name"))) {
				properties.put((String) property.get("name"), new LinkedHashMap<>(property));
			}
		}
		for (Map<String, Object> property : read("META-INF/additional-spring-configuration-metadata.json")) {
			if (isWardens((String) property.get("name"))) {
				properties.computeIfAbsent((String) property.get("name"), name -> new LinkedHashMap<>()).putAll(property);
			}
		}
		return properties;
	}

	private static boolean isWardens(String name) {
		return name.startsWith("warden.") || name.startsWith("management.endpoint.warden.");
	}

	@SuppressWarnings("unchecked")
	private static List<Map<String, Object>> read(String resource) throws IOException {
		List<Map<String, Object>> properties = new ArrayList<>();
		JsonMapper json = JsonMapper.builder().build();
		Enumeration<URL> urls = ConfigurationReferenceTests.class.getClassLoader().getResources(resource);
		while (urls.hasMoreElements()) {
			try (InputStream in = urls.nextElement().openStream()) {
				Map<String, Object> metadata = json.readValue(in, Map.class);
				Object listed = metadata.get("properties");
				if (listed instanceof List<?> list) {
					list.forEach(property -> properties.add((Map<String, Object>) property));
				}
			}
		}
		return properties;
	}

	private static String section(String name) {
		String found = null;
		for (String prefix : SECTIONS.keySet()) {
			if ((name.startsWith(prefix + ".")) && (found == null || prefix.length() > found.length())) {
				found = prefix;
			}
		}
		return found;
	}

	static String render(Map<String, Map<String, Object>> properties) {
		Map<String, List<String>> bySection = new LinkedHashMap<>();
		SECTIONS.keySet().forEach(prefix -> bySection.put(prefix, new ArrayList<>()));
		properties.keySet().forEach(name -> {
			String section = section(name);
			bySection.get((section != null) ? section : "warden").add(name);
		});
		StringBuilder out = new StringBuilder();
		out.append("# Configuration properties\n\n");
		out.append(page.generatedBy("the configuration metadata of warden-spring-boot-autoconfigure")).append("\n\n");
		out.append("Every property Warden reads, by prefix. Durations are written as `500ms`, `30s`, `10m`, `1h`, ")
			.append("`14d` or ISO-8601 (`PT30M`), a number without a unit being milliseconds; sizes as `512KB`, ")
			.append("`1MB`, a number without a unit being bytes.\n");
		bySection.forEach((prefix, names) -> {
			if (names.isEmpty()) {
				return;
			}
			out.append("\n## ").append(prefix).append("\n\n").append(SECTIONS.get(prefix)).append("\n\n");
			out.append("| Property | Type | Default | Description | Deprecation |\n");
			out.append("|---|---|---|---|---|\n");
			for (String name : names) {
				Map<String, Object> property = properties.get(name);
				out.append("| ").append(code(name))
					.append(" | ").append(type((String) property.get("type")))
					.append(" | ").append(defaultValue(property.get("defaultValue")))
					.append(" | ").append(cell(String.valueOf(property.getOrDefault("description", ""))))
					.append(" | ").append(deprecation(property.get("deprecation")))
					.append(" |\n");
			}
		});
		return out.toString();
	}

	/** The type's simple name; an enum's with the values it is written as. */
	private static String type(String type) {
		if (type == null) {
			return "";
		}
		Matcher qualified = QUALIFIED.matcher(type);
		String simple = qualified.replaceAll("$1").replace(",", ", ");
		String values = "";
		if (!type.contains("<")) {
			try {
				Class<?> declared = Class.forName(type, false, ConfigurationReferenceTests.class.getClassLoader());
				if (declared.isEnum()) {
					values = " (" + java.util.Arrays.stream(declared.getEnumConstants())
						.map(constant -> code(((Enum<?>) constant).name().toLowerCase(Locale.ROOT).replace('_', '-')))
						.collect(Collectors.joining(", ")) + ")";
				}
			}
			catch (ClassNotFoundException ex) {
				// Not on the class path of the docs: its simple name only.
			}
		}
		return code(simple) + values;
	}

	private static String defaultValue(Object value) {
		if (value == null) {
			return "(unset)";
		}
		if ("".equals(value)) {
			return "(empty)";
		}
		if (value instanceof List<?> list) {
			return list.isEmpty() ? "(none)" : list.stream().map(String::valueOf).map(GeneratedPage::code)
				.collect(Collectors.joining(", "));
		}
		return code(String.valueOf(value));
	}

	@SuppressWarnings("unchecked")
	private static String deprecation(Object deprecation) {
		if (!(deprecation instanceof Map<?, ?>)) {
			return "";
		}
		Map<String, Object> details = (Map<String, Object>) deprecation;
		StringBuilder text = new StringBuilder("error".equals(details.get("level")) ? "No longer supported" : "Deprecated");
		if (details.get("since") != null) {
			text.append(" since ").append(cell(String.valueOf(details.get("since"))));
		}
		text.append('.');
		if (details.get("reason") != null) {
			String reason = cell(String.valueOf(details.get("reason")));
			text.append(' ').append(reason).append(reason.endsWith(".") ? "" : ".");
		}
		if (details.get("replacement") != null) {
			text.append(" Replaced by ").append(code(String.valueOf(details.get("replacement")))).append('.');
		}
		return text.toString();
	}

}

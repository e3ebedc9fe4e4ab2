package dev.warden.task.interceptor;

import java.lang.reflect.Field;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonIgnore;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.BeanProperty;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.exc.ValueInstantiationException;
import tools.jackson.databind.jsonFormatVisitors.JsonFormatVisitorWrapper;
import tools.jackson.databind.jsonFormatVisitors.JsonObjectFormatVisitor;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Proves at startup that a task argument's type survives the trip through JSON, so that nothing is
 * stored that cannot be read back equal: every field of the type (and of the types of its
 * properties) is written, and a sample with a value in every property reads back into an object
 * that writes the same values again. A field without a getter, or a property without a setter,
 * creator parameter or visible field to read it into, fails the check, naming it.
 */
final class ArgumentRoundTrip {

	private static final int MAX_DEPTH = 4;

	/** Values of the JDK's value types that task arguments often carry, none of them a default. */
	private static final Map<Class<?>, Object> JDK_SAMPLES = Map.ofEntries(
			Map.entry(Instant.class, Instant.ofEpochSecond(1_700_000_007L)),
			Map.entry(LocalDate.class, LocalDate.of(2026, 7, 7)),
			Map.entry(LocalDateTime.class, LocalDateTime.of(2026, 7, 7, 7, 7)),
			Map.entry(LocalTime.class, LocalTime.of(7, 7)),
			Map.entry(OffsetDateTime.class, OffsetDateTime.of(2026, 7, 7, 7, 7, 0, 0, ZoneOffset.ofHours(7))),
			Map.entry(Duration.class, Duration.ofSeconds(7)), Map.entry(UUID.class, new UUID(7, 7)),
			Map.entry(BigDecimal.class, new BigDecimal("7.5")), Map.entry(BigInteger.class, BigInteger.valueOf(7)));

	private final JsonMapper mapper;

	ArgumentRoundTrip(JsonMapper mapper) {
		this.mapper = mapper;
	}

	/**
	 * @param type a parameter's type
	 * @return what does not survive the trip, or {@code null} when everything does
	 */
	@Nullable String problem(JavaType type) {
		return problem(type, new HashSet<>(), 0);
	}

	private @Nullable String problem(JavaType type, Set<Class<?>> seen, int depth) {
		if (type.isContainerType()) {
			String inKey = (type.getKeyType() != null) ? problem(type.getKeyType(), seen, depth) : null;
			return (inKey != null) ? inKey : problem(type.getContentType(), seen, depth);
		}
		Class<?> raw = type.getRawClass();
		if (!isBean(raw) || !seen.add(raw) || depth > MAX_DEPTH) {
			return null;
		}
		List<BeanProperty> properties = writtenProperties(type);
		Set<String> fieldBacked = new HashSet<>();
		for (Field field : instanceFields(raw)) {
			BeanProperty writing = properties.stream()
				.filter(property -> names(property).contains(field.getName()))
				.findFirst()
				.orElse(null);
			if (writing == null) {
				return raw.getName() + "." + field.getName() + " is not written to JSON (no getter, and Jackson does "
						+ "not see the field)";
			}
			fieldBacked.add(writing.getName());
		}
		ObjectNode sample = mapper.createObjectNode();
		for (BeanProperty property : properties) {
			JsonNode value = sample(property.getType(), depth + 1);
			if (value != null) {
				sample.set(property.getName(), value);
			}
		}
		JsonNode back;
		try {
			back = mapper.valueToTree(mapper.treeToValue(sample, type));
		}
		catch (ValueInstantiationException ex) {
			// Its creator refused the sample (a check of its own on a value the sample could not
			// fill in): the round trip cannot be shown with a sample, so only the fields are checked.
			back = null;
		}
		catch (JacksonException ex) {
			return raw.getName() + " cannot be read back from JSON: " + ex.getOriginalMessage();
		}
		if (back == null) {
			return nestedProblem(properties, seen, depth);
		}
		// A property computed from others (a getter without a field) is not state: it need not come back.
		for (Iterator<Map.Entry<String, JsonNode>> it = sample.properties().iterator(); it.hasNext();) {
			Map.Entry<String, JsonNode> written = it.next();
			if (fieldBacked.contains(written.getKey()) && !same(written.getValue(), back.get(written.getKey()))) {
				return raw.getName() + "'s property '" + written.getKey() + "' is written to JSON but not read back "
						+ "(no setter, creator parameter or visible field for it)";
			}
		}
		return nestedProblem(properties, seen, depth);
	}

	private @Nullable String nestedProblem(List<BeanProperty> properties, Set<Class<?>> seen, int depth) {
		for (BeanProperty property : properties) {
			String nested = problem(property.getType(), seen, depth + 1);
			if (nested != null) {
				return nested;
			}
		}
		return null;
	}

	/** A type whose properties Jackson maps one by one: not the JDK's, not abstract, not an enum. */
	private static boolean isBean(Class<?> type) {
		return !type.isPrimitive() && !type.isArray() && !type.isEnum() && !type.isInterface()
				&& !Modifier.isAbstract(type.getModifiers()) && !type.getName().startsWith("java.")
				&& !type.getName().startsWith("javax.") && !type.getName().startsWith("tools.jackson.");
	}

	private List<BeanProperty> writtenProperties(JavaType type) {
		List<BeanProperty> properties = new ArrayList<>();
		mapper.acceptJsonFormatVisitor(type, new JsonFormatVisitorWrapper.Base() {
			@Override
			public JsonObjectFormatVisitor expectObjectFormat(JavaType objectType) {
				return new JsonObjectFormatVisitor.Base(getContext()) {
					@Override
					public void property(BeanProperty property) {
						properties.add(property);
					}

					@Override
					public void optionalProperty(BeanProperty property) {
						properties.add(property);
					}
				};
			}
		});
		return properties;
	}

	/** The names a field may go by in a property: its JSON name, its member's, the member's bean name. */
	private static Set<String> names(BeanProperty property) {
		Set<String> names = new HashSet<>();
		names.add(property.getName());
		if (property.getMember() != null) {
			String member = property.getMember().getName();
			names.add(member);
			for (String prefix : new String[] { "get", "is" }) {
				if (member.length() > prefix.length() && member.startsWith(prefix)) {
					String rest = member.substring(prefix.length());
					names.add(Character.toLowerCase(rest.charAt(0)) + rest.substring(1));
				}
			}
		}
		return names;
	}

	private static List<Field> instanceFields(Class<?> type) {
		List<Field> fields = new ArrayList<>();
		for (Class<?> current = type; current != null && isBean(current); current = current.getSuperclass()) {
			for (Field field : current.getDeclaredFields()) {
				int modifiers = field.getModifiers();
				if (!Modifier.isStatic(modifiers) && !Modifier.isTransient(modifiers) && !field.isSynthetic()
						&& !field.isAnnotationPresent(JsonIgnore.class)) {
					fields.add(field);
				}
			}
		}
		return fields;
	}

	/** A JSON value of the type with nothing default about it, or {@code null} when none is known. */
	private @Nullable JsonNode sample(JavaType type, int depth) {
		Class<?> raw = type.getRawClass();
		if (raw == boolean.class || raw == Boolean.class) {
			return mapper.getNodeFactory().booleanNode(true);
		}
		if (raw == int.class || raw == Integer.class || raw == long.class || raw == Long.class || raw == short.class
				|| raw == Short.class || raw == byte.class || raw == Byte.class) {
			return mapper.getNodeFactory().numberNode(7);
		}
		if (raw == double.class || raw == Double.class || raw == float.class || raw == Float.class) {
			return mapper.getNodeFactory().numberNode(7.5);
		}
		if (raw == String.class || raw == CharSequence.class) {
			return mapper.getNodeFactory().textNode("sample");
		}
		if (raw == char.class || raw == Character.class) {
			return mapper.getNodeFactory().textNode("c");
		}
		Object jdkValue = JDK_SAMPLES.get(raw);
		if (jdkValue != null) {
			return mapper.valueToTree(jdkValue);
		}
		if (raw.isEnum()) {
			Object[] constants = raw.getEnumConstants();
			return (constants.length > 0) ? mapper.valueToTree(constants[constants.length - 1]) : null;
		}
		if (type.isCollectionLikeType() || type.isArrayType()) {
			JsonNode element = sample(type.getContentType(), depth);
			if (element == null) {
				return null;
			}
			ArrayNode array = mapper.createArrayNode();
			array.add(element);
			return array;
		}
		if (type.isMapLikeType()) {
			JsonNode value = sample(type.getContentType(), depth);
			Class<?> key = type.getKeyType().getRawClass();
			if (value == null || (key != String.class && key != Object.class)) {
				return null;
			}
			ObjectNode map = mapper.createObjectNode();
			map.set("key", value);
			return map;
		}
		if (isBean(raw) && depth <= MAX_DEPTH) {
			ObjectNode bean = mapper.createObjectNode();
			for (BeanProperty property : writtenProperties(type)) {
				JsonNode value = sample(property.getType(), depth + 1);
				if (value != null) {
					bean.set(property.getName(), value);
				}
			}
			return bean;
		}
		return null;
	}

	/** Whether a value read back is the one written: numbers and text by their text, trees recursively. */
	private static boolean same(JsonNode written, @Nullable JsonNode back) {
		if (back == null) {
			return false;
		}
		if (written.isObject()) {
			if (!back.isObject()) {
				return false;
			}
			for (Map.Entry<String, JsonNode> entry : written.properties()) {
				if (!same(entry.getValue(), back.get(entry.getKey()))) {
					return false;
				}
			}
			return true;
		}
		if (written.isArray()) {
			if (!back.isArray() || back.size() != written.size()) {
				return false;
			}
			for (int i = 0; i < written.size(); i++) {
				if (!same(written.get(i), back.get(i))) {
					return false;
				}
			}
			return true;
		}
		return written.asString().equals(back.asString());
	}

}

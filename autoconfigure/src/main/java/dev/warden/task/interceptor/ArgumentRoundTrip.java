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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.warden.json.JsonBinding;
import dev.warden.json.JsonBinding.JsonProperty;
import dev.warden.json.JsonBinding.JsonType;
import dev.warden.task.UnreadablePayloadException;
import org.jspecify.annotations.Nullable;

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

	private final JsonBinding binding;

	ArgumentRoundTrip(JsonBinding binding) {
		this.binding = binding;
	}

	/**
	 * @param type a parameter's type
	 * @return what does not survive the trip, or {@code null} when everything does
	 */
	@Nullable String problem(JsonType type) {
		return problem(type, new HashSet<>(), 0);
	}

	private @Nullable String problem(JsonType type, Set<Class<?>> seen, int depth) {
		if (type.isContainer()) {
			String inKey = (type.keyType() != null) ? problem(binding.describe(type.keyType()), seen, depth) : null;
			if (inKey != null || type.contentType() == null) {
				return inKey;
			}
			return problem(binding.describe(type.contentType()), seen, depth);
		}
		Class<?> raw = type.rawClass();
		if (!isBean(raw) || !seen.add(raw) || depth > MAX_DEPTH) {
			return null;
		}
		List<JsonProperty> properties = binding.properties(type.type());
		if (properties == null) {
			// Written by a serializer of its own, whose reading counterpart is the application's to prove.
			return null;
		}
		Set<String> fieldBacked = new HashSet<>();
		for (Field field : instanceFields(raw)) {
			JsonProperty writing = properties.stream()
				.filter(property -> names(property).contains(field.getName()))
				.findFirst()
				.orElse(null);
			if (writing == null) {
				return raw.getName() + "." + field.getName() + " is not written to JSON (no getter, and Jackson does "
						+ "not see the field)";
			}
			fieldBacked.add(writing.name());
		}
		// What a property's own type loses is the cause to name, before what its owner then loses.
		String nested = nestedProblem(properties, seen, depth);
		if (nested != null) {
			return nested;
		}
		Map<String, Object> sample = new LinkedHashMap<>();
		for (JsonProperty property : properties) {
			Object value = sample(binding.describe(property.type()), depth + 1);
			if (value != null) {
				sample.put(property.name(), value);
			}
		}
		Object back;
		try {
			back = binding.toTree(binding.fromTree(sample, type.type()));
		}
		catch (JsonBinding.ValueRefusedException ex) {
			// Its creator refused the sample (a check of its own on a value the sample could not
			// fill in): the round trip cannot be shown with a sample, so only the fields are checked.
			back = null;
		}
		catch (UnreadablePayloadException ex) {
			return raw.getName() + " cannot be read back from JSON: " + ex.getMessage();
		}
		catch (IllegalArgumentException ex) {
			return raw.getName() + " cannot be written to JSON: " + ex.getMessage();
		}
		if (back == null) {
			return null;
		}
		Map<?, ?> backObject = (back instanceof Map<?, ?> map) ? map : Map.of();
		// A property computed from others (a getter without a field) is not state: it need not come back.
		for (Map.Entry<String, Object> written : sample.entrySet()) {
			if (fieldBacked.contains(written.getKey()) && !same(written.getValue(), backObject.get(written.getKey()))) {
				return raw.getName() + "'s property '" + written.getKey() + "' is written to JSON but not read back "
						+ "(no setter, creator parameter or visible field for it)";
			}
		}
		return null;
	}

	private @Nullable String nestedProblem(List<JsonProperty> properties, Set<Class<?>> seen, int depth) {
		for (JsonProperty property : properties) {
			String nested = problem(binding.describe(property.type()), seen, depth + 1);
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
				&& !type.getName().startsWith("javax.") && !type.getName().startsWith("tools.jackson.")
				&& !type.getName().startsWith("com.fasterxml.jackson.");
	}

	/** The names a field may go by in a property: its JSON name, its member's, the member's bean name. */
	private static Set<String> names(JsonProperty property) {
		Set<String> names = new HashSet<>();
		names.add(property.name());
		String member = property.memberName();
		if (member != null) {
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
	private @Nullable Object sample(JsonType type, int depth) {
		Class<?> raw = type.rawClass();
		if (raw == boolean.class || raw == Boolean.class) {
			return true;
		}
		if (raw == int.class || raw == Integer.class || raw == long.class || raw == Long.class || raw == short.class
				|| raw == Short.class || raw == byte.class || raw == Byte.class) {
			return 7;
		}
		if (raw == double.class || raw == Double.class || raw == float.class || raw == Float.class) {
			return 7.5;
		}
		if (raw == String.class || raw == CharSequence.class) {
			return "sample";
		}
		if (raw == char.class || raw == Character.class) {
			return "c";
		}
		Object jdkValue = JDK_SAMPLES.get(raw);
		if (jdkValue != null) {
			return treeOf(jdkValue);
		}
		if (raw.isEnum()) {
			Object[] constants = raw.getEnumConstants();
			return (constants.length > 0) ? treeOf(constants[constants.length - 1]) : null;
		}
		if (type.kind() == JsonType.Kind.COLLECTION || type.kind() == JsonType.Kind.ARRAY) {
			Object element = (type.contentType() != null) ? sample(binding.describe(type.contentType()), depth) : null;
			return (element != null) ? List.of(element) : null;
		}
		if (type.kind() == JsonType.Kind.MAP) {
			Object value = (type.contentType() != null) ? sample(binding.describe(type.contentType()), depth) : null;
			Class<?> key = (type.keyType() != null) ? binding.describe(type.keyType()).rawClass() : Object.class;
			if (value == null || (key != String.class && key != Object.class)) {
				return null;
			}
			return Map.of("key", value);
		}
		List<JsonProperty> properties = (isBean(raw) && depth <= MAX_DEPTH) ? binding.properties(type.type()) : null;
		if (properties != null) {
			Map<String, Object> bean = new LinkedHashMap<>();
			for (JsonProperty property : properties) {
				Object value = sample(binding.describe(property.type()), depth + 1);
				if (value != null) {
					bean.put(property.name(), value);
				}
			}
			return bean;
		}
		return null;
	}

	/** A value as JSON, or {@code null} when the mapper cannot write it (no module for it). */
	private @Nullable Object treeOf(Object value) {
		try {
			return binding.toTree(value);
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
	}

	/** Whether a value read back is the one written: numbers and text by their text, trees recursively. */
	private static boolean same(@Nullable Object written, @Nullable Object back) {
		if (written instanceof Map<?, ?> writtenObject) {
			if (!(back instanceof Map<?, ?> backObject)) {
				return false;
			}
			for (Map.Entry<?, ?> entry : writtenObject.entrySet()) {
				if (!same(entry.getValue(), backObject.get(entry.getKey()))) {
					return false;
				}
			}
			return true;
		}
		if (written instanceof List<?> writtenArray) {
			if (!(back instanceof List<?> backArray) || backArray.size() != writtenArray.size()) {
				return false;
			}
			for (int i = 0; i < writtenArray.size(); i++) {
				if (!same(writtenArray.get(i), backArray.get(i))) {
					return false;
				}
			}
			return true;
		}
		return back != null && String.valueOf(written).equals(String.valueOf(back));
	}

}

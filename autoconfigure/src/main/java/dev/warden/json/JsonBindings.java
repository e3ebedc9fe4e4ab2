package dev.warden.json;

import java.lang.reflect.Type;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Finds the JSON library that stores task payloads when the application names none.
 */
public final class JsonBindings {

	private static final String MISSING = "Warden stores task payloads as JSON and finds no Jackson on the "
			+ "classpath: add tools.jackson.core:jackson-databind (Spring Boot 4) or "
			+ "com.fasterxml.jackson.core:jackson-databind (Spring Boot 3)";

	private JsonBindings() {
	}

	/**
	 * @return Jackson 3 with every module on the classpath when Jackson 3 is there, else Jackson 2
	 * likewise, else a binding that fails each use, naming the dependency to add
	 */
	public static JsonBinding detect() {
		if (isPresent("tools.jackson.databind.json.JsonMapper")) {
			return Jackson3Binding.withModules();
		}
		if (isPresent("com.fasterxml.jackson.databind.ObjectMapper")) {
			return Jackson2Binding.withModules();
		}
		return new Missing();
	}

	private static boolean isPresent(String className) {
		try {
			Class.forName(className, false, JsonBindings.class.getClassLoader());
			return true;
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return false;
		}
	}

	/** No JSON library: locks work, and the first use of a payload fails naming what to add. */
	private static final class Missing implements JsonBinding {

		@Override
		public String write(@Nullable Object value, Type type) {
			throw new IllegalStateException(MISSING);
		}

		@Override
		public String writeArray(@Nullable Object[] values) {
			throw new IllegalStateException(MISSING);
		}

		@Override
		public @Nullable Object read(String json, Type type) {
			throw new IllegalStateException(MISSING);
		}

		@Override
		public @Nullable Object[] readArray(String json, Type[] types) {
			throw new IllegalStateException(MISSING);
		}

		@Override
		public @Nullable Object toTree(@Nullable Object value) {
			throw new IllegalStateException(MISSING);
		}

		@Override
		public @Nullable Object fromTree(@Nullable Object tree, Type type) {
			throw new IllegalStateException(MISSING);
		}

		@Override
		public JsonType describe(Type type) {
			throw new IllegalStateException(MISSING);
		}

		@Override
		public @Nullable List<JsonProperty> properties(Type type) {
			throw new IllegalStateException(MISSING);
		}

		@Override
		public @Nullable String definitionProblem(Type type) {
			throw new IllegalStateException(MISSING);
		}

	}

}

package dev.warden.task.interceptor;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.Arrays;
import java.util.function.Supplier;

import dev.warden.expression.MethodExpressions;
import dev.warden.task.PayloadCodec;
import dev.warden.task.UnreadablePayloadException;
import org.jspecify.annotations.Nullable;
import org.springframework.core.KotlinDetector;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.exc.InvalidDefinitionException;
import tools.jackson.databind.json.JsonMapper;

/**
 * A method's arguments as a task payload: the JSON of the argument when there is one, a JSON array
 * of them when there are several, read back with the parameters' generic types.
 */
final class ArgumentsCodec implements PayloadCodec<Object[]> {

	private final Supplier<JsonMapper> mappers;

	private final Method method;

	// Resolved at first use, not while beans are being created: the mapper may be a bean itself.
	private volatile @Nullable Resolved resolved;

	ArgumentsCodec(Supplier<JsonMapper> mappers, Method method) {
		this.mappers = mappers;
		this.method = method;
	}

	/** The mapper and the parameters' types, as it reads them. */
	private record Resolved(JsonMapper mapper, JavaType[] types) {
	}

	private Resolved resolved() {
		Resolved current = resolved;
		if (current == null) {
			JsonMapper mapper = mappers.get();
			Type[] parameters = method.getGenericParameterTypes();
			if (KotlinDetector.isSuspendingFunction(method)) {
				// A suspend function's continuation is the caller's, not an argument of the task.
				parameters = Arrays.copyOf(parameters, parameters.length - 1);
			}
			JavaType[] types = new JavaType[parameters.length];
			for (int i = 0; i < parameters.length; i++) {
				types[i] = mapper.constructType(parameters[i]);
			}
			current = new Resolved(mapper, types);
			resolved = current;
		}
		return current;
	}

	/**
	 * Checks that every parameter type can be read back from JSON, and that what is read back is
	 * what was written.
	 * @throws IllegalStateException naming the method and the type when one cannot
	 */
	void check() {
		Resolved current = resolved();
		ArgumentRoundTrip roundTrip = new ArgumentRoundTrip(current.mapper());
		for (JavaType type : current.types()) {
			check(current.mapper(), type);
			String lost = roundTrip.problem(type);
			if (lost != null) {
				throw new IllegalStateException("@DelayedTask " + MethodExpressions.describe(method)
						+ " has a parameter of type " + type.toCanonical() + " that does not survive the trip through JSON: "
						+ lost + "; give each field a getter and a setter or creator parameter, or mark it @JsonIgnore");
			}
		}
	}

	private void check(JsonMapper mapper, JavaType type) {
		Class<?> raw = type.getRawClass();
		if (raw == Object.class) {
			throw new IllegalStateException("@DelayedTask " + MethodExpressions.describe(method)
					+ " has a parameter of type Object, whose class JSON cannot carry; use a concrete type");
		}
		if (type.isContainerType()) {
			if (type.getKeyType() != null) {
				check(mapper, type.getKeyType());
			}
			check(mapper, type.getContentType());
			return;
		}
		try {
			mapper.readValue("{}", type);
		}
		catch (InvalidDefinitionException ex) {
			throw new IllegalStateException("@DelayedTask " + MethodExpressions.describe(method) + " has a parameter of type "
					+ type + " that JSON cannot be read back into: " + ex.getOriginalMessage(), ex);
		}
		catch (JacksonException ex) {
			// Wrong input for a type that can be read otherwise: fine.
		}
	}

	@Override
	public String encode(Object[] arguments) {
		JsonMapper mapper = resolved().mapper();
		JavaType[] types = resolved().types();
		if (arguments.length == 1) {
			return mapper.writerFor(types[0]).writeValueAsString(arguments[0]);
		}
		return mapper.writeValueAsString(arguments);
	}

	@Override
	public Object[] decode(String text) {
		JsonMapper mapper = resolved().mapper();
		JavaType[] types = resolved().types();
		try {
			if (types.length == 0) {
				return new Object[0];
			}
			if (types.length == 1) {
				return new Object[] { mapper.readValue(text, types[0]) };
			}
			JsonNode array = mapper.readTree(text);
			if (!array.isArray() || array.size() != types.length) {
				throw new UnreadablePayloadException("Expected a JSON array of " + types.length + " arguments for "
						+ MethodExpressions.describe(method) + ", got " + abbreviate(text), null);
			}
			Object[] arguments = new Object[types.length];
			for (int i = 0; i < types.length; i++) {
				arguments[i] = mapper.treeToValue(array.get(i), types[i]);
			}
			return arguments;
		}
		catch (JacksonException ex) {
			throw new UnreadablePayloadException("Cannot read the arguments of " + MethodExpressions.describe(method)
					+ " from " + abbreviate(text) + ": " + ex.getOriginalMessage(), ex);
		}
	}

	private static String abbreviate(String text) {
		return (text.length() > 200) ? text.substring(0, 200) + "..." : text;
	}

}

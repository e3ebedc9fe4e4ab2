package dev.warden.task.interceptor;

import java.lang.reflect.Method;
import java.lang.reflect.Type;

import dev.warden.expression.MethodExpressions;
import dev.warden.task.PayloadCodec;
import dev.warden.task.UnreadablePayloadException;
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

	private final JsonMapper mapper;

	private final Method method;

	private final JavaType[] types;

	ArgumentsCodec(JsonMapper mapper, Method method) {
		this.mapper = mapper;
		this.method = method;
		Type[] parameters = method.getGenericParameterTypes();
		this.types = new JavaType[parameters.length];
		for (int i = 0; i < parameters.length; i++) {
			types[i] = mapper.constructType(parameters[i]);
		}
	}

	/**
	 * Checks that every parameter type can be read back from JSON.
	 * @throws IllegalStateException naming the method and the type when one cannot
	 */
	void check() {
		for (JavaType type : types) {
			check(type);
		}
	}

	private void check(JavaType type) {
		Class<?> raw = type.getRawClass();
		if (raw == Object.class) {
			throw new IllegalStateException("@DelayedTask " + MethodExpressions.describe(method)
					+ " has a parameter of type Object, whose class JSON cannot carry; use a concrete type");
		}
		if (type.isContainerType()) {
			if (type.getKeyType() != null) {
				check(type.getKeyType());
			}
			check(type.getContentType());
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
		if (arguments.length == 1) {
			return mapper.writerFor(types[0]).writeValueAsString(arguments[0]);
		}
		return mapper.writeValueAsString(arguments);
	}

	@Override
	public Object[] decode(String text) {
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

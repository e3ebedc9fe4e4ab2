package dev.warden.task.interceptor;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.Arrays;
import java.util.function.Supplier;

import dev.warden.expression.MethodExpressions;
import dev.warden.task.PayloadCodec;
import dev.warden.task.UnreadablePayloadException;
import dev.warden.json.JsonBinding;
import dev.warden.json.JsonBinding.JsonType;
import org.jspecify.annotations.Nullable;
import org.springframework.core.KotlinDetector;

/**
 * A method's arguments as a task payload: the JSON of the argument when there is one, a JSON array
 * of them when there are several, read back with the parameters' generic types.
 */
final class ArgumentsCodec implements PayloadCodec<Object[]> {

	private final Supplier<JsonBinding> bindings;

	private final Method method;

	// Resolved at first use, not while beans are being created: the mapper may be a bean itself.
	private volatile @Nullable Resolved resolved;

	ArgumentsCodec(Supplier<JsonBinding> bindings, Method method) {
		this.bindings = bindings;
		this.method = method;
	}

	/** The binding and the parameters' types, as it reads them. */
	private record Resolved(JsonBinding binding, JsonType[] types, Type[] bound) {
	}

	private Resolved resolved() {
		Resolved current = resolved;
		if (current == null) {
			JsonBinding binding = bindings.get();
			Type[] parameters = method.getGenericParameterTypes();
			if (KotlinDetector.isSuspendingFunction(method)) {
				// A suspend function's continuation is the caller's, not an argument of the task.
				parameters = Arrays.copyOf(parameters, parameters.length - 1);
			}
			JsonType[] types = new JsonType[parameters.length];
			Type[] bound = new Type[parameters.length];
			for (int i = 0; i < parameters.length; i++) {
				types[i] = binding.describe(parameters[i]);
				bound[i] = types[i].type();
			}
			current = new Resolved(binding, types, bound);
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
		ArgumentRoundTrip roundTrip = new ArgumentRoundTrip(current.binding());
		for (JsonType type : current.types()) {
			check(current.binding(), type);
			String lost = roundTrip.problem(type);
			if (lost != null) {
				throw new IllegalStateException("@DelayedTask " + MethodExpressions.describe(method)
						+ " has a parameter of type " + type.name() + " that does not survive the trip through JSON: "
						+ lost + "; give each field a getter and a setter or creator parameter, or mark it @JsonIgnore");
			}
		}
	}

	private void check(JsonBinding binding, JsonType type) {
		Class<?> raw = type.rawClass();
		if (raw == Object.class) {
			throw new IllegalStateException("@DelayedTask " + MethodExpressions.describe(method)
					+ " has a parameter of type Object, whose class JSON cannot carry; use a concrete type");
		}
		if (type.isContainer()) {
			if (type.keyType() != null) {
				check(binding, binding.describe(type.keyType()));
			}
			if (type.contentType() != null) {
				check(binding, binding.describe(type.contentType()));
			}
			return;
		}
		String problem = binding.definitionProblem(type.type());
		if (problem != null) {
			throw new IllegalStateException("@DelayedTask " + MethodExpressions.describe(method) + " has a parameter of type "
					+ type.name() + " that JSON cannot be read back into: " + problem);
		}
	}

	@Override
	public String encode(Object[] arguments) {
		Resolved current = resolved();
		if (arguments.length == 1) {
			return current.binding().write(arguments[0], current.bound()[0]);
		}
		return current.binding().writeArray(arguments);
	}

	@Override
	public Object[] decode(String text) {
		Resolved current = resolved();
		try {
			if (current.bound().length == 0) {
				return new Object[0];
			}
			if (current.bound().length == 1) {
				return new Object[] { current.binding().read(text, current.bound()[0]) };
			}
			return current.binding().readArray(text, current.bound());
		}
		catch (UnreadablePayloadException ex) {
			throw new UnreadablePayloadException("Cannot read the arguments of " + MethodExpressions.describe(method)
					+ ": " + ex.getMessage(), ex.getCause());
		}
	}

}

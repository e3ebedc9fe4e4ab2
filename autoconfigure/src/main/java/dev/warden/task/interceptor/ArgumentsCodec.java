package dev.warden.task.interceptor;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

import dev.warden.expression.MethodExpressions;
import dev.warden.task.PayloadCodec;
import dev.warden.task.NewerTaskFormatException;
import dev.warden.task.UnreadablePayloadException;
import dev.warden.json.JsonBinding;
import dev.warden.json.JsonBinding.JsonType;
import org.jspecify.annotations.Nullable;
import org.springframework.core.KotlinDetector;

/**
 * A method's arguments as a task payload: the JSON of the argument when there is one, a JSON array
 * of them when there are several, read back with the parameters' generic types. From version 2 on
 * the JSON is wrapped with its version, {@code {"@version":2,"arguments":...}}; a payload of an
 * older version is read by that version's upgrade, one of a newer version is left in the queue for
 * an instance that reads it ({@link NewerTaskFormatException}).
 */
final class ArgumentsCodec implements PayloadCodec<Object[]> {

	private static final String VERSION_PREFIX = "{\"@version\":";

	private static final String ARGUMENTS = ",\"arguments\":";

	private final Supplier<JsonBinding> bindings;

	private final Method method;

	private final int version;

	private final Map<Integer, Upgrade> upgrades;

	// Resolved at first use, not while beans are being created: the mapper may be a bean itself.
	private volatile @Nullable Resolved resolved;

	ArgumentsCodec(Supplier<JsonBinding> bindings, Method method) {
		this(bindings, method, 1, Map.of());
	}

	/**
	 * @param version the version of the arguments this writes
	 * @param upgrades the upgrades from older versions, by the version they read
	 */
	ArgumentsCodec(Supplier<JsonBinding> bindings, Method method, int version, Map<Integer, Method> upgrades) {
		this.bindings = bindings;
		this.method = method;
		this.version = version;
		Map<Integer, Upgrade> readers = new HashMap<>();
		upgrades.forEach((from, upgrade) -> readers.put(from, new Upgrade(upgrade, new ArgumentsCodec(bindings, upgrade))));
		this.upgrades = Map.copyOf(readers);
	}

	/** An upgrade method, and the reader of the arguments it takes. */
	private record Upgrade(Method method, ArgumentsCodec reader) {
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
		for (Upgrade upgrade : upgrades.values()) {
			upgrade.reader().check();
		}
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
		String json = (arguments.length == 1) ? current.binding().write(arguments[0], current.bound()[0])
				: current.binding().writeArray(arguments);
		return (version == 1) ? json : VERSION_PREFIX + version + ARGUMENTS + json + "}";
	}

	@Override
	public Object[] decode(String text) {
		int stored = 1;
		String json = text;
		if (text.startsWith(VERSION_PREFIX) && text.endsWith("}")) {
			int arguments = text.indexOf(ARGUMENTS, VERSION_PREFIX.length());
			String number = (arguments > 0) ? text.substring(VERSION_PREFIX.length(), arguments) : "";
			if (!number.isEmpty() && number.length() < 10 && number.chars().allMatch(Character::isDigit)) {
				stored = Integer.parseInt(number);
				json = text.substring(arguments + ARGUMENTS.length(), text.length() - 1);
			}
		}
		if (stored == version) {
			return read(json);
		}
		if (stored > version) {
			// Written by a newer version, deployed elsewhere: left in the queue for an instance that reads it.
			throw new NewerTaskFormatException("The arguments of " + MethodExpressions.describe(method) + " were written "
					+ "by version " + stored + " of the task, and this instance runs version " + version
					+ "; an instance of version " + stored + " or later runs it");
		}
		Upgrade upgrade = upgrades.get(stored);
		if (upgrade == null) {
			throw new UnreadablePayloadException("The arguments of " + MethodExpressions.describe(method)
					+ " were written by version " + stored + " of the task, and this is version " + version
					+ " with no @TaskUpgrade from " + stored + "; the payload: " + abbreviate(json), null);
		}
		return upgraded(upgrade, upgrade.reader().read(json), stored);
	}

	private Object[] upgraded(Upgrade upgrade, Object[] old, int from) {
		Object result;
		try {
			result = upgrade.method().invoke(null, old);
		}
		catch (InvocationTargetException ex) {
			Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
			throw new UnreadablePayloadException("@TaskUpgrade " + MethodExpressions.describe(upgrade.method())
					+ " failed on arguments of version " + from + ": " + cause, cause);
		}
		catch (IllegalAccessException ex) {
			throw new IllegalStateException("Cannot call @TaskUpgrade " + MethodExpressions.describe(upgrade.method()), ex);
		}
		int expected = resolved().bound().length;
		Object[] arguments = (upgrade.method().getReturnType() == Object[].class) ? (Object[]) result
				: new Object[] { result };
		if (arguments == null || arguments.length != expected) {
			throw new UnreadablePayloadException("@TaskUpgrade " + MethodExpressions.describe(upgrade.method())
					+ " returned " + ((arguments == null) ? "null" : arguments.length + " arguments") + " for "
					+ MethodExpressions.describe(method) + ", which takes " + expected, null);
		}
		return arguments;
	}

	/** Reads the arguments of this codec's method from their JSON, without a version. */
	private Object[] read(String json) {
		Resolved current = resolved();
		try {
			if (current.bound().length == 0) {
				return new Object[0];
			}
			if (current.bound().length == 1) {
				return new Object[] { current.binding().read(json, current.bound()[0]) };
			}
			return current.binding().readArray(json, current.bound());
		}
		catch (UnreadablePayloadException ex) {
			throw new UnreadablePayloadException("Cannot read the arguments of " + MethodExpressions.describe(method)
					+ ": " + ex.getMessage(), ex.getCause());
		}
	}

	private static String abbreviate(String text) {
		return (text.length() > 200) ? text.substring(0, 200) + "..." : text;
	}

}

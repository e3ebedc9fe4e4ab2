package dev.warden.lock.interceptor;

import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.CachedExpressionEvaluator;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;

/**
 * Parses lock key expressions once per method and expression, checks the parameter names they
 * use, and evaluates them per call into lock names.
 */
public final class LockKeyExpressions extends CachedExpressionEvaluator {

	private final Map<ExpressionKey, Expression> cache = new ConcurrentHashMap<>();

	private final @Nullable BeanFactoryResolver beanResolver;

	/**
	 * @param beanFactory resolves {@code @beanName} references; {@code null} when there is none
	 */
	public LockKeyExpressions(@Nullable BeanFactory beanFactory) {
		this.beanResolver = (beanFactory != null) ? new BeanFactoryResolver(beanFactory) : null;
	}

	/**
	 * Parses one key expression of {@code method} and checks that every {@code #variable} it
	 * reads is a parameter of the method.
	 * @throws IllegalStateException naming the method and the expression when it does not parse or
	 * names an unknown parameter
	 */
	Expression parse(Method method, Class<?> targetClass, String expression) {
		if (expression.isBlank()) {
			throw new IllegalStateException("Blank lock key expression on " + LockOperation.describe(method));
		}
		Expression parsed;
		try {
			parsed = getExpression(cache, new AnnotatedElementKey(method, targetClass), expression);
		}
		catch (ParseException ex) {
			throw new IllegalStateException("Invalid lock key expression '" + expression + "' on "
					+ LockOperation.describe(method) + ": " + ex.getMessage(), ex);
		}
		if (parsed instanceof SpelExpression spel) {
			Set<String> known = variableNames(method);
			List<String> unknown = new ArrayList<>();
			collectUnknownVariables(spel.getAST(), known, unknown);
			if (!unknown.isEmpty()) {
				throw new IllegalStateException("Lock key expression '" + expression + "' on "
						+ LockOperation.describe(method) + " refers to unknown parameter" + (unknown.size() > 1 ? "s " : " ")
						+ String.join(", ", unknown) + "; known: " + String.join(", ", new TreeSet<>(known))
						+ " (parameter names need the -parameters compiler flag)");
			}
		}
		return parsed;
	}

	/**
	 * Evaluates the operation's keys for one call into sorted, distinct lock names.
	 * @throws IllegalArgumentException when a key evaluates to {@code null} or blank
	 */
	List<String> lockNames(LockOperation operation, Object[] arguments, Object target, Class<?> targetClass) {
		if (operation.keys().isEmpty()) {
			return List.of(operation.name());
		}
		Method method = operation.method();
		MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(
				new LockExpressionRoot(method, arguments, target, targetClass), method, arguments,
				getParameterNameDiscoverer());
		if (beanResolver != null) {
			context.setBeanResolver(beanResolver);
		}
		TreeSet<String> names = new TreeSet<>();
		for (int i = 0; i < operation.keys().size(); i++) {
			Object value = operation.keys().get(i).getValue(context);
			String expression = operation.keyExpressions().get(i);
			for (Object key : flatten(value)) {
				String text = (key != null) ? key.toString() : null;
				if (text == null || text.isBlank()) {
					throw new IllegalArgumentException("Lock key '" + expression + "' of " + operation.describe()
							+ " evaluated to " + (text == null ? "null" : "a blank string")
							+ "; the method was not called");
				}
				names.add(operation.name() + ":" + text);
			}
		}
		return List.copyOf(names);
	}

	private static List<@Nullable Object> flatten(@Nullable Object value) {
		List<@Nullable Object> keys = new ArrayList<>();
		if (value instanceof Collection<?> collection) {
			keys.addAll(collection);
		}
		else if (value != null && value.getClass().isArray()) {
			for (int i = 0; i < Array.getLength(value); i++) {
				keys.add(Array.get(value, i));
			}
		}
		else {
			keys.add(value);
		}
		if (keys.isEmpty()) {
			keys.add(null);
		}
		return keys;
	}

	private Set<String> variableNames(Method method) {
		Set<String> names = new HashSet<>(Set.of("root", "this"));
		for (int i = 0; i < method.getParameterCount(); i++) {
			names.add("p" + i);
			names.add("a" + i);
		}
		String[] parameterNames = getParameterNameDiscoverer().getParameterNames(method);
		if (parameterNames != null) {
			names.addAll(List.of(parameterNames));
		}
		return names;
	}

	private static void collectUnknownVariables(SpelNode node, Set<String> known, List<String> unknown) {
		if (node instanceof VariableReference) {
			String name = node.toStringAST().substring(1);
			if (!known.contains(name)) {
				unknown.add("#" + name);
			}
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			collectUnknownVariables(node.getChild(i), known, unknown);
		}
	}

}

package dev.warden.expression;

import java.lang.reflect.Method;
import java.util.ArrayList;
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
import org.springframework.core.KotlinDetector;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;

/**
 * SpEL expressions over a method call ({@code #param}, {@code #p0}, {@code #root.method},
 * {@code @bean}): parsed once per method and expression, with the parameter names they use
 * checked at parse time, and evaluated per call.
 */
public final class MethodExpressions extends CachedExpressionEvaluator {

	private final Map<ExpressionKey, Expression> cache = new ConcurrentHashMap<>();

	private final @Nullable BeanFactoryResolver beanResolver;

	/**
	 * @param beanFactory resolves {@code @beanName} references; {@code null} when there is none
	 */
	public MethodExpressions(@Nullable BeanFactory beanFactory) {
		this.beanResolver = (beanFactory != null) ? new BeanFactoryResolver(beanFactory) : null;
	}

	/**
	 * Parses one key expression of {@code method} and checks that every {@code #variable} it
	 * reads is a parameter of the method.
	 * @throws IllegalStateException naming the method and the expression when it does not parse or
	 * names an unknown parameter
	 */
	public Expression parse(Method method, Class<?> targetClass, String expression) {
		if (expression.isBlank()) {
			throw new IllegalStateException("Blank expression on " + describe(method));
		}
		Expression parsed;
		try {
			parsed = getExpression(cache, new AnnotatedElementKey(method, targetClass), expression);
		}
		catch (ParseException ex) {
			throw new IllegalStateException("Invalid expression '" + expression + "' on "
					+ describe(method) + ": " + ex.getMessage(), ex);
		}
		if (parsed instanceof SpelExpression spel) {
			Set<String> known = variableNames(method);
			List<String> unknown = new ArrayList<>();
			collectUnknownVariables(spel.getAST(), known, unknown);
			if (!unknown.isEmpty()) {
				throw new IllegalStateException("Expression '" + expression + "' on "
						+ describe(method) + " refers to unknown parameter" + (unknown.size() > 1 ? "s " : " ")
						+ String.join(", ", unknown) + "; known: " + String.join(", ", new TreeSet<>(known))
						+ " (parameter names need the -parameters compiler flag)");
			}
		}
		return parsed;
	}

	/**
	 * Evaluates a parsed expression for one call.
	 * @param expression an expression from {@link #parse}
	 * @param method the called method
	 * @param arguments the call's arguments
	 * @param target the bean called
	 * @param targetClass the bean's class
	 * @return the value
	 */
	public @Nullable Object evaluate(Expression expression, Method method, Object[] arguments, Object target,
			Class<?> targetClass) {
		MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(
				new MethodExpressionRoot(method, arguments, target, targetClass), method, arguments,
				getParameterNameDiscoverer());
		if (beanResolver != null) {
			context.setBeanResolver(beanResolver);
		}
		return expression.getValue(context);
	}

	/** A method as messages name it: {@code com.example.Service.call(String, long)}. */
	public static String describe(Method method) {
		boolean suspending = KotlinDetector.isSuspendingFunction(method);
		StringBuilder text = new StringBuilder(suspending ? "suspend " : "").append(method.getDeclaringClass().getName())
			.append('.')
			.append(method.getName())
			.append('(');
		Class<?>[] types = method.getParameterTypes();
		// A suspend function's continuation is the compiler's, not a parameter its author wrote.
		int count = suspending ? types.length - 1 : types.length;
		for (int i = 0; i < count; i++) {
			text.append(i > 0 ? ", " : "").append(types[i].getSimpleName());
		}
		return text.append(')').toString();
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

package dev.warden.expression;

import java.lang.reflect.Method;

/**
 * The {@code #root} object of method expressions.
 *
 * @param method the called method ({@code #root.method.name})
 * @param args the call's arguments ({@code #root.args[0]})
 * @param target the bean called ({@code #root.target})
 * @param targetClass the bean's class ({@code #root.targetClass})
 */
public record MethodExpressionRoot(Method method, Object[] args, Object target, Class<?> targetClass) {
}

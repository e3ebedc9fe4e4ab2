package dev.warden.task.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import dev.warden.aot.WardenAnnotationsReflectiveProcessor;
import org.springframework.aot.hint.annotation.Reflective;

/**
 * Turns the arguments of an older version of a {@link DelayedTask} into the current ones, so that
 * tasks scheduled before a deploy that changed the method's parameters still run after it. A
 * {@code static} method of the class that declares the {@code @DelayedTask} method: its parameters
 * are the arguments as version {@link #from()} wrote them, read from the stored payload with their
 * types; it returns the current method's one argument, or an {@code Object[]} of its arguments when
 * it has several.
 * <pre class="code">
 * &#64;DelayedTask(queue = "invoice-reminders", delay = "1d", id = "#invoice.number", version = 2)
 * public void remind(Invoice invoice) { ... }
 *
 * &#64;TaskUpgrade(queue = "invoice-reminders", from = 1)
 * static Invoice fromVersion1(String number, long amountCents) {
 *     return new Invoice(number, Money.ofCents(amountCents, "EUR"));
 * }
 * </pre>
 * Each upgrade goes from its version straight to the current one. Checked at startup: the queue
 * has a {@code @DelayedTask} in the class, {@code from} is below its version, one upgrade per
 * version, and the return type fits; anything else fails startup naming the method.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective(WardenAnnotationsReflectiveProcessor.class)
public @interface TaskUpgrade {

	/** {@return the queue of the {@link DelayedTask} method whose older arguments this reads} */
	String queue();

	/** {@return the version whose arguments this reads: at least 1, below the {@link DelayedTask#version()}} */
	int from();

}

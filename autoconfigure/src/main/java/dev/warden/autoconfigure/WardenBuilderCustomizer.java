package dev.warden.autoconfigure;

import dev.warden.Warden;

/**
 * Changes the auto-configured {@link Warden} client's builder after the {@code warden.*} properties
 * are applied and before the client connects. Every bean of this type is called, in order.
 * <pre class="code">
 * &#64;Bean
 * WardenBuilderCustomizer patientFairLocks() {
 *     return builder -&gt; builder.fairLockWaiterTimeout(Duration.ofSeconds(30));
 * }
 * </pre>
 */
@FunctionalInterface
public interface WardenBuilderCustomizer {

	/**
	 * @param builder the builder, set from the properties
	 */
	void customize(Warden.Builder builder);

}

/**
 * Public API: configuring Warden in a Spring Boot application, through the {@code warden.*}
 * properties ({@link dev.warden.autoconfigure.WardenProperties}), a
 * {@link dev.warden.autoconfigure.WardenBuilderCustomizer} bean and a
 * {@link dev.warden.autoconfigure.RateLimitProblems} bean.
 * <p>
 * The auto-configuration classes themselves ({@code Warden*AutoConfiguration}) are internal, as
 * Spring Boot's are: their names may be used to exclude or order them, but their members are not
 * for use by applications and may change in any release. They provide a {@link dev.warden.Warden}
 * bean on the application's own Lettuce client, the annotations' interceptors, the meters and the
 * endpoint.
 */
@NullMarked
package dev.warden.autoconfigure;

import org.jspecify.annotations.NullMarked;

/**
 * Public API: testing applications that use Warden: {@link dev.warden.test.WardenTest} gives a
 * Spring Boot test a real Redis without set-up.
 */
@NullMarked
package dev.warden.test;

import org.jspecify.annotations.NullMarked;

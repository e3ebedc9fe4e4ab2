/**
 * A real PostgreSQL server for tests, started from Debian's package.
 */
@NullMarked
package dev.warden.test.postgres;

import org.jspecify.annotations.NullMarked;

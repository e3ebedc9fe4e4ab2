/**
 * Internal: a real PostgreSQL server for Warden's own tests, started from Debian's package, not for
 * use by applications; may change in any release.
 */
@NullMarked
package dev.warden.test.postgres;

import org.jspecify.annotations.NullMarked;

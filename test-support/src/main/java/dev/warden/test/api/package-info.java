/**
 * Internal: the check that Warden's declared API holds, for Warden's own build, not for use by
 * applications; may change in any release.
 * <p>
 * It reads which packages are public API, SPI or internal, as each package's
 * {@code package-info.java} says, and finds every signature outside the internal packages that
 * mentions an internal type.
 */
@NullMarked
package dev.warden.test.api;

import org.jspecify.annotations.NullMarked;

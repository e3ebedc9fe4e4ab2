/**
 * Internal: what Warden adds on the Spring Boot 3.5 line only, the health indicator in Boot 3's
 * health API, not for use by applications; may change in any release.
 */
@NullMarked
package dev.warden.actuate.boot3;

import org.jspecify.annotations.NullMarked;

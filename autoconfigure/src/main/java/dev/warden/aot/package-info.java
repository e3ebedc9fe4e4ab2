/**
 * Internal: the runtime hints a native image of an application that uses Warden needs, not for
 * use by applications; may change in any release.
 */
@NullMarked
package dev.warden.aot;

import org.jspecify.annotations.NullMarked;

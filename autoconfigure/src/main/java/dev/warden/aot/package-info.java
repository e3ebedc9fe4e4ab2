/**
 * Ahead-of-time processing: the runtime hints a native image of an application that uses Warden
 * needs.
 */
@NullMarked
package dev.warden.aot;

import org.jspecify.annotations.NullMarked;

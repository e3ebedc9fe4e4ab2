/**
 * Internal: checks on how beans call their Warden-annotated methods (calls on {@code this},
 * which Spring's proxies never see), not for use by applications; may change in any release.
 */
@NullMarked
package dev.warden.aop;

import org.jspecify.annotations.NullMarked;

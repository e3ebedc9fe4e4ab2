/**
 * Checks on how beans call their Warden-annotated methods: calls on {@code this}, which Spring's
 * proxies never see.
 */
@NullMarked
package dev.warden.aop;

import org.jspecify.annotations.NullMarked;

/**
 * Internal: delayed-task writes that follow the application's transactions, through an outbox
 * table, not for use by applications; may change in any release.
 * <p>
 * The auto-configuration installs {@link dev.warden.task.transaction.TaskOutbox} as the client's
 * {@link dev.warden.task.TaskWriteDeferral}; the properties under
 * {@code warden.delayed-task.transactions} configure it.
 */
@NullMarked
package dev.warden.task.transaction;

import org.jspecify.annotations.NullMarked;

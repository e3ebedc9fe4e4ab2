/**
 * Public API: what an operator sees of Warden and does with it: the Actuator endpoint, the health
 * indicator and the dashboard, over one {@link dev.warden.actuate.WardenAdmin}.
 */
@NullMarked
package dev.warden.actuate;

import org.jspecify.annotations.NullMarked;

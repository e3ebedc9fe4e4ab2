/**
 * How task payloads become JSON: the application's Jackson 3 or Jackson 2 mapper.
 */
@NullMarked
package dev.warden.json;

import org.jspecify.annotations.NullMarked;

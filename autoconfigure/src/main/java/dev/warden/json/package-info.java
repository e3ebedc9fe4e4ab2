/**
 * SPI: how task payloads become JSON, through a {@link dev.warden.json.JsonBinding} that an
 * application may implement for another library; Warden's own bindings use the application's
 * Jackson 3 or Jackson 2 mapper.
 */
@NullMarked
package dev.warden.json;

import org.jspecify.annotations.NullMarked;

package dev.warden.task.redis;

import java.lang.reflect.Type;

import dev.warden.json.JsonBinding;
import dev.warden.task.PayloadCodec;

/**
 * Payloads as JSON, read back as a given (possibly generic) type.
 *
 * @param <T> the payload type
 */
public final class JsonPayloadCodec<T> implements PayloadCodec<T> {

	private final JsonBinding binding;

	private final Type type;

	/**
	 * @param binding the JSON library that writes and reads payloads
	 * @param type the payload type, generics included
	 */
	public JsonPayloadCodec(JsonBinding binding, Type type) {
		this.binding = binding;
		this.type = binding.describe(type).type();
	}

	@Override
	public String encode(T payload) {
		return binding.write(payload, type);
	}

	@Override
	@SuppressWarnings("unchecked")
	public T decode(String text) {
		return (T) binding.read(text, type);
	}

}

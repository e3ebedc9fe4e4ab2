package dev.warden.task.redis;

import java.lang.reflect.Type;

import dev.warden.task.PayloadCodec;
import dev.warden.task.UnreadablePayloadException;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.json.JsonMapper;

/**
 * Payloads as JSON, read back as a given (possibly generic) type.
 *
 * @param <T> the payload type
 */
public final class JsonPayloadCodec<T> implements PayloadCodec<T> {

	private final JsonMapper mapper;

	private final JavaType type;

	/**
	 * @param mapper the JSON mapper
	 * @param type the payload type, generic types included
	 */
	public JsonPayloadCodec(JsonMapper mapper, Type type) {
		this.mapper = mapper;
		this.type = mapper.constructType(type);
	}

	@Override
	public String encode(T payload) {
		return mapper.writeValueAsString(payload);
	}

	@Override
	public T decode(String text) {
		try {
			return mapper.readValue(text, type);
		}
		catch (JacksonException ex) {
			throw new UnreadablePayloadException("Cannot read " + type + " from " + abbreviate(text) + ": "
					+ ex.getOriginalMessage(), ex);
		}
	}

	static String abbreviate(String text) {
		return (text.length() > 200) ? text.substring(0, 200) + "..." : text;
	}

}

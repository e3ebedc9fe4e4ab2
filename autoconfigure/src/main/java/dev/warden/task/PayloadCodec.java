package dev.warden.task;

/**
 * Turns payloads into the text stored in Redis and back.
 *
 * @param <T> the payload type
 */
public interface PayloadCodec<T> {

	/** The stored form of {@code payload}. */
	String encode(T payload);

	/**
	 * The payload stored as {@code text}.
	 * @throws UnreadablePayloadException when it cannot be read as {@code T}
	 */
	T decode(String text);

}

package dev.warden.task;

/**
 * Turns payloads into the text stored in Redis and back.
 *
 * @param <T> the payload type
 */
public interface PayloadCodec<T> {

	/**
	 * {@return the stored form of {@code payload}}
	 * @param payload the payload
	 */
	String encode(T payload);

	/**
	 * The payload stored as {@code text}.
	 * @throws UnreadablePayloadException when it cannot be read as {@code T}
	 * @param text the stored form
	 * @return the payload
	 */
	T decode(String text);

}

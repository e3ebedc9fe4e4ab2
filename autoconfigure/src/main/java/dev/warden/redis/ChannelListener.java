package dev.warden.redis;

/**
 * Receives the messages of one pub/sub channel. Called on a Lettuce event-loop thread: must not
 * block.
 */
@FunctionalInterface
public interface ChannelListener {

	void onMessage(String message);

	/**
	 * The subscription was renewed after the connection dropped (a reconnect, a fail-over): what
	 * was published meanwhile is lost, so whoever waits for a message should look again.
	 */
	default void onResubscribed() {
	}

}

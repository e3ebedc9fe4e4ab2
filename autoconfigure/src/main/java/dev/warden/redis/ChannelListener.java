package dev.warden.redis;

/**
 * Receives the messages of one pub/sub channel. Called on a Lettuce event-loop thread: must not
 * block.
 */
@FunctionalInterface
public interface ChannelListener {

	void onMessage(String message);

}

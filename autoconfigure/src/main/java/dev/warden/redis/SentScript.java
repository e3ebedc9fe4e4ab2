package dev.warden.redis;

import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.function.BooleanSupplier;

import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.BooleanOutput;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.output.ValueOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.netty.buffer.ByteBuf;
import org.jspecify.annotations.Nullable;

/**
 * A script call ({@code EVALSHA}, or {@code EVAL} with its text) that knows when it was written to
 * a connection, so that it is not sent twice.
 * <p>
 * Lettuce sends again, once it has reconnected, every command whose reply it had not read when the
 * connection closed. That suits a read, not a script that takes a hold, a permit or a place in a
 * rate: when the connection closed after Redis ran the script (a {@code CLIENT KILL}, an idle
 * {@code timeout}, a proxy or a load balancer closing it), the script would run twice, and the
 * caller would be told of the second run only. So a script written to the connection that closed
 * fails instead ({@link #lost()}), as one whose connection is reset does: the caller sees that it
 * may have run, and the lock family's next call on that name drops what it may have left. A script
 * that Lettuce kept while the connection was down, never written, goes out on the new connection.
 * <p>
 * It is written on the event loop of its connection's channel, the thread that also reports the
 * channel closed; the connection is known by that thread ({@link #writtenOn}).
 *
 * @param <T> the reply's Java type
 */
final class SentScript<T> extends AsyncCommand<String, String, T> {

	/**
	 * {@code ECHO 0}: what is written in place of a call that has ended already. Its reply, a bulk
	 * {@code "0"}, is one that every output Warden reads takes without complaint.
	 */
	private static final byte[] IN_PLACE_OF_AN_ENDED_CALL = "*2\r\n$4\r\nECHO\r\n$1\r\n0\r\n"
		.getBytes(StandardCharsets.US_ASCII);

	private final Set<SentScript<?>> unanswered;

	private final BooleanSupplier channelClosed;

	/** The event loop that last wrote the script to a channel; {@code null} before it is written. */
	private volatile @Nullable Thread writtenOn;

	private SentScript(Command<String, String, T> command, Calls calls) {
		super(command);
		this.unanswered = calls.unanswered();
		this.channelClosed = calls.channelClosed();
	}

	/**
	 * Where the calls on one connection stay from when they are written until they are answered, and
	 * whether its channel is known to have closed (a call written to it then fails to go out, and
	 * Lettuce keeps it for the next channel).
	 */
	record Calls(Set<SentScript<?>> unanswered, BooleanSupplier channelClosed) {
	}

	/**
	 * The call of a script by its SHA1, or {@code null} when the reply type is one Warden does not
	 * read (the caller sends it as Lettuce does).
	 * @param sha1 the script's SHA1
	 * @param type the reply type
	 * @param keys the script's {@code KEYS}
	 * @param args the script's {@code ARGV}
	 * @param calls the connection's calls
	 */
	static <T> @Nullable SentScript<T> bySha(String sha1, ScriptOutputType type, String[] keys, String[] args,
			Calls calls) {
		return of(CommandType.EVALSHA, sha1, type, keys, args, calls);
	}

	/** Like {@link #bySha}, with the script's text ({@code EVAL}). */
	static <T> @Nullable SentScript<T> byText(String source, ScriptOutputType type, String[] keys, String[] args,
			Calls calls) {
		return of(CommandType.EVAL, source, type, keys, args, calls);
	}

	private static <T> @Nullable SentScript<T> of(CommandType eval, String script, ScriptOutputType type,
			String[] keys, String[] args, Calls calls) {
		CommandOutput<String, String, T> output = output(type);
		if (output == null) {
			return null;
		}
		CommandArgs<String, String> arguments = new CommandArgs<>(StringCodec.UTF8).add(script)
			.add(keys.length)
			.addKeys(keys)
			.addValues(args);
		return new SentScript<>(new Command<>(eval, output, arguments), calls);
	}

	@SuppressWarnings("unchecked")
	private static <T> @Nullable CommandOutput<String, String, T> output(ScriptOutputType type) {
		CommandOutput<String, String, ?> output = switch (type) {
			case INTEGER -> new IntegerOutput<>(StringCodec.UTF8);
			case MULTI -> new NestedMultiOutput<>(StringCodec.UTF8);
			case BOOLEAN -> new BooleanOutput<>(StringCodec.UTF8);
			case STATUS -> new StatusOutput<>(StringCodec.UTF8);
			case VALUE -> new ValueOutput<>(StringCodec.UTF8);
			default -> null;
		};
		return (CommandOutput<String, String, T>) output;
	}

	@Override
	public void encode(ByteBuf buffer) {
		if (isDone()) {
			// Failed or cancelled already, and still written: Lettuce's Cluster connection wraps a call
			// in a command of its own, which it sends again after a reconnect whatever became of the
			// call. Its place in the connection's replies is kept, with a command that changes nothing.
			buffer.writeBytes(IN_PLACE_OF_AN_ENDED_CALL);
			return;
		}
		if (channelClosed.getAsBoolean()) {
			// Written to a channel that closed: it fails to go out, and Lettuce keeps it for the next.
			super.encode(buffer);
			return;
		}
		writtenOn = Thread.currentThread();
		if (unanswered.add(this)) {
			// Runs at once when the call has ended meanwhile (cancelled while it was being written).
			whenComplete((value, failure) -> unanswered.remove(this));
		}
		super.encode(buffer);
	}

	/**
	 * Fails the calls in {@code unanswered} written on {@code eventLoop}, whose channel has just
	 * closed: Lettuce would send them again. Called on that event loop, as the channel closes.
	 * @return how many calls failed
	 */
	static int lost(Set<SentScript<?>> unanswered, Thread eventLoop) {
		int failed = 0;
		for (SentScript<?> sent : unanswered) {
			if (sent.writtenOn == eventLoop && sent.completeExceptionally(new ClosedBeforeReply())) {
				failed++;
			}
		}
		return failed;
	}

	/**
	 * Whether {@code failure}, or one of its causes, is a call that failed because its connection
	 * closed after it was written and before Redis answered it ({@link #lost}).
	 */
	static boolean closedBeforeReply(@Nullable Throwable failure) {
		Throwable cause = failure;
		// A bounded walk: a cause chain may loop.
		for (int depth = 0; cause != null && depth < 16; depth++) {
			if (cause instanceof ClosedBeforeReply) {
				return true;
			}
			cause = cause.getCause();
		}
		return false;
	}

	/** The failure of a call whose connection closed after it was written, before Redis answered. */
	static final class ClosedBeforeReply extends RedisConnectionException {

		private static final long serialVersionUID = 1L;

		ClosedBeforeReply() {
			super("The connection to Redis closed before it answered a script; the script may have run");
		}

	}

	// AsyncCommand compares by the command it wraps: each call is its own.
	@Override
	public boolean equals(Object other) {
		return this == other;
	}

	@Override
	public int hashCode() {
		return System.identityHashCode(this);
	}

}

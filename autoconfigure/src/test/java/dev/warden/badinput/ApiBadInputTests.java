package dev.warden.badinput;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.lock.LockOwner;
import dev.warden.task.ConsumerOptions;
import dev.warden.task.DelayedQueue;
import dev.warden.test.redis.RedisNode;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static dev.warden.badinput.BadInputCatalogue.expect;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rows of the Java API: each mistake throws before anything changes in Redis.
 */
class ApiBadInputTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private RedisNode node;

	private Warden warden;

	private LockOwner owner;

	@BeforeEach
	void openClient() {
		node = redis.node();
		warden = clients.open(node);
		owner = warden.newOwner();
	}

	@Test
	void aNullLockName() {
		expect("P01", node, () -> warden.getLock(null));
	}

	@Test
	void aBlankSemaphoreName() {
		expect("P02", node, () -> warden.getSemaphore("  "));
	}

	@Test
	void bracesInALockName() {
		expect("P03", node, () -> warden.getLock("order{42}"));
	}

	@Test
	void aNegativeWait() {
		expect("P04", node, () -> warden.getLock("order-42").tryLock(owner, -1, TimeUnit.SECONDS));
	}

	@Test
	void aLeaseOfZero() {
		expect("P05", node, () -> warden.getLock("order-42").tryLock(owner, 0, 0, TimeUnit.SECONDS));
	}

	@Test
	void anAbsurdLease() {
		expect("P06", node, () -> warden.getLock("order-42").tryLock(owner, 0, Long.MAX_VALUE, TimeUnit.DAYS));
	}

	@Test
	void anUnlockByAnOwnerThatDoesNotHoldTheLock() throws InterruptedException {
		assertThat(warden.getLock("held").tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();
		LockOwner other = clients.open(node).newOwner();

		expect("P07", node, () -> warden.getLock("held").unlock(other));

		assertThat(warden.getLock("held").isHeldBy(owner)).isTrue();
	}

	@Test
	void noPermits() {
		expect("P08", node, () -> warden.getSemaphore("pool").tryAcquire(0, 0, TimeUnit.SECONDS));
	}

	@Test
	void negativePermits() {
		expect("P09", node, () -> warden.getSemaphore("pool").trySetPermits(-3));
	}

	@Test
	void anUnknownPermitId() {
		assertThat(warden.getPermitExpirableSemaphore("leases").trySetPermits(2)).isTrue();

		expect("P10", node, () -> warden.getPermitExpirableSemaphore("leases").release("no-such-permit"));
	}

	@Test
	void aNegativeCount() {
		expect("P11", node, () -> warden.getCountDownLatch("ready").trySetCount(-1));
	}

	@Test
	void aLockOnAStringKey() {
		node.call("SET", "config", "{\"mode\":\"fast\"}");

		expect("P12", node, () -> warden.getLock("config").tryLock(owner, 0, TimeUnit.SECONDS));
	}

	@Test
	void aSemaphoreOnAHashKey() {
		node.call("HSET", "profile", "name", "ada");

		expect("P13", node, () -> warden.getSemaphore("profile").tryAcquire());
	}

	@Test
	void aQueueWhoseKeyHoldsAString() {
		node.call("SET", "warden:task:{close}:due", "x");

		expect("P14", node, () -> warden.getDelayedQueue("close", String.class).schedule("t-1", "o-1", Duration.ZERO));
	}

	@Test
	void bracesInAQueueName() {
		expect("P15", node, () -> warden.getDelayedQueue("close{eu}", String.class));
	}

	@Test
	void aBlankTaskId() {
		expect("P16", node, () -> warden.getDelayedQueue("close", String.class).schedule(" ", "o-1", Duration.ZERO));
	}

	@Test
	void aNullPayload() {
		expect("P17", node, () -> warden.getDelayedQueue("close", String.class).schedule("t-1", null, Duration.ZERO));
	}

	@Test
	void aNegativeDelay() {
		expect("P18", node,
				() -> warden.getDelayedQueue("close", String.class).schedule("t-1", "o-1", Duration.ofMinutes(-1)));
	}

	@Test
	void anAbsurdDelay() {
		expect("P19", node, () -> warden.getDelayedQueue("close", String.class)
			.schedule("t-1", "o-1", Duration.ofDays(1_000_000)));
	}

	@Test
	void anAbsurdDueTime() {
		expect("P20", node,
				() -> warden.getDelayedQueue("close", String.class).schedule("t-1", "o-1", Instant.MAX));
	}

	@Test
	void aPayloadOverTheLimit() {
		String twoMegabytes = "x".repeat(2 * 1024 * 1024);

		expect("P21", node,
				() -> warden.getDelayedQueue("close", String.class).schedule("t-1", twoMegabytes, Duration.ZERO));
	}

	@Test
	void aPayloadThatCannotBeReadBack() {
		DelayedQueue<Receipt> receipts = warden.getDelayedQueue("receipts", Receipt.class);

		expect("P22", node, () -> receipts.schedule("t-1", new PaperReceipt("r-7"), Duration.ZERO));
	}

	@Test
	void aNegativeDelayWhenRescheduling() {
		DelayedQueue<String> queue = warden.getDelayedQueue("close", String.class);
		queue.schedule("t-1", "o-1", Duration.ofHours(1));

		expect("P23", node, () -> queue.reschedule("t-1", Duration.ofSeconds(-1)));
	}

	@Test
	void aSecondConsumerOfOneQueueOnOneClient() {
		DelayedQueue<String> queue = warden.getDelayedQueue("close", String.class);
		queue.consume(delivery -> {
		});

		expect("P24", node, () -> queue.consume(delivery -> {
		}));
	}

	@Test
	void noAttempts() {
		expect("P25", node, () -> new ConsumerOptions(0, Duration.ofSeconds(1), Duration.ofSeconds(1),
				Duration.ofMinutes(1)));
	}

	@Test
	void aClientIdWithAColon() {
		expect("P26", node, () -> Warden.builder(clients.redisClient(node)).clientId("a:b"));
	}

	@Test
	void aSimpleLockTakenAgainByItsHolder() {
		warden.getSimpleLock("report").lock();
		expect("P27", node, () -> warden.getSimpleLock("report").lock());
	}

	@Test
	void aNegativeDelayBeforeAnUnlock() throws Exception {
		LockOwner owner = warden.newOwner();
		warden.getLock("held-on").tryLock(owner, 0, TimeUnit.SECONDS);
		expect("P28", node, () -> warden.getLock("held-on").unlockAfterAsync(owner, -1, TimeUnit.SECONDS));
	}

	@Test
	void aNegativeDeadLetterOffset() {
		expect("P29", node, () -> warden.getDelayedQueue("close").deadLetters(-1, 10));
	}

	@Test
	void aDeadLetterRangeWithoutAStart() {
		expect("P30", node, () -> warden.getDelayedQueue("close").requeueDeadLetters(null, Instant.now()));
	}

	@Test
	void anEmptyPageOfPendingTasks() {
		expect("P31", node, () -> warden.getDelayedQueue("close").pendingTasks(0, 0));
	}

	@Test
	void aControlCharacterInALockName() {
		expect("P32", node, () -> warden.getLock("order\n42"));
	}

	@Test
	void anOverlongQueueName() {
		expect("P33", node, () -> warden.getDelayedQueue("x".repeat(1025), String.class));
	}

	@Test
	void aControlCharacterInATaskId() {
		expect("P34", node, () -> warden.getDelayedQueue("close", String.class).schedule("t-1\r\n", "o-1", Duration.ZERO));
	}

	@Test
	void aPageWhosePayloadsAreCutToNothing() {
		expect("P35", node, () -> warden.getDelayedQueue("close").pendingTasks(0, 50, 0));
	}

	/** A payload type JSON writes but cannot read back: an interface. */
	public interface Receipt {

		String getNumber();

	}

	/** What is written for a {@link Receipt}. */
	public record PaperReceipt(String number) implements Receipt {

		@Override
		public String getNumber() {
			return number;
		}

	}

}

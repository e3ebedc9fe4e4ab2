package dev.warden.lock.redis;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The in-process bookkeeping of one channel's sleeping waiters. */
class LockWaitersTests {

	private final LockWaiters waiters = new LockWaiters();

	@Test
	void aReleaseAnnouncedWhileTheOnlySleeperIsClaimedWakesItWhenItIsGivenBack() {
		LockWaiters.Sleeper sleeper = waiters.sleep(new LockWaiters.Successor("client:1", 30_000, false));
		assertThat(waiters.claimSuccessor()).isSameAs(sleeper);

		// The lock was released elsewhere while the hand-over was under way: no one was asleep.
		waiters.onMessage("0");
		waiters.giveBack(sleeper);

		assertThat(sleeper.wakeUp).isCompletedWithValue(null);
		assertThat(waiters.asleep()).isZero();
		// The message was this waiter's: a later sleeper does not get it a second time.
		assertThat(waiters.sleep(null).wakeUp).isNotDone();
	}

	@Test
	void aClaimedSleeperThatIsGivenBackSleepsAgainAtTheHead() {
		LockWaiters.Sleeper first = waiters.sleep(new LockWaiters.Successor("client:1", 30_000, false));
		LockWaiters.Sleeper second = waiters.sleep(null);
		assertThat(waiters.claimSuccessor()).isSameAs(first);

		waiters.giveBack(first);
		waiters.onMessage("0");

		assertThat(first.wakeUp).isCompletedWithValue(null);
		assertThat(second.wakeUp).isNotDone();
	}

	@Test
	void aSleeperThatStoppedWaitingWhileClaimedRetriesWhenGivenBack() {
		LockWaiters.Sleeper sleeper = waiters.sleep(new LockWaiters.Successor("client:1", 30_000, false));
		assertThat(waiters.claimSuccessor()).isSameAs(sleeper);
		assertThat(waiters.withdraw(sleeper)).isTrue();

		waiters.giveBack(sleeper);

		assertThat(sleeper.wakeUp).isCompletedWithValue(null);
		assertThat(waiters.asleep()).isZero();
	}

	@Test
	void onlySleepersThatCanTakeTheLockOverAreClaimed() {
		LockWaiters.Sleeper plain = waiters.sleep(null);
		assertThat(waiters.claimSuccessor()).isNull();
		LockWaiters.Sleeper successor = waiters.sleep(new LockWaiters.Successor("client:2", 30_000, false));
		assertThat(waiters.claimSuccessor()).isSameAs(successor);
		assertThat(waiters.asleep()).isEqualTo(1);
		assertThat(plain.wakeUp).isNotDone();
	}

}

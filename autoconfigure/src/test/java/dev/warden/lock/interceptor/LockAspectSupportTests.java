package dev.warden.lock.interceptor;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import dev.warden.expression.MethodExpressions;
import dev.warden.lock.LockAcquisitionException;
import dev.warden.lock.LockListener;
import dev.warden.lock.LockLostException;
import dev.warden.lock.LockOwner;
import dev.warden.lock.annotation.DistributedLock;
import dev.warden.lock.annotation.LockContext;
import dev.warden.lock.annotation.LockType;
import dev.warden.lock.annotation.OnLockFailure;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.ProxyFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The annotation's own logic, over locks that live in memory: which locks a call takes, in which
 * order, for whom, and what it does when one is busy or lost. The same behaviour against Redis is
 * in {@code DistributedLockAnnotationTests}.
 */
class LockAspectSupportTests {

	private final InMemoryLocks locks = new InMemoryLocks();

	private final List<String> lostLeases = new ArrayList<>();

	private final LockListener listener = new LockListener() {
		@Override
		public void onLeaseLost(String lockName, LockOwner owner, @Nullable Throwable cause) {
			lostLeases.add(lockName + " " + owner.id());
		}
	};

	private final Service service = proxy(new Service(locks));

	@Test
	void callRunsHoldingTheLockNamedByPrefixNameAndKeyForTheCallingThread() {
		assertThat(service.purchase("apple")).isEqualTo("held by memory:thread");

		assertThat(locks.events()).containsExactly("lock p:stock:apple reentrant memory:thread",
				"unlock p:stock:apple memory:thread");
	}

	@Test
	void severalKeysAreLockedInSortedOrderAndReleasedInReverse() {
		service.transfer("zeta", "alpha");

		assertThat(locks.events()).containsExactly("lock p:transfer:alpha reentrant memory:thread",
				"lock p:transfer:zeta reentrant memory:thread", "unlock p:transfer:zeta memory:thread",
				"unlock p:transfer:alpha memory:thread");
	}

	@Test
	void typeChoosesTheKindOfLock() {
		service.fair("q");

		assertThat(locks.events()).first().isEqualTo("lock p:fair:q fair memory:thread");
		service.simple("s");
		assertThat(locks.events()).contains("lock p:simple:s simple memory:thread");
	}

	@Test
	void theCallSeesItsFencingTokenWhenItAsksForOne() {
		OptionalLong token = service.token("t");

		assertThat(token).isPresent();
		assertThat(LockContext.currentToken()).isEmpty();
		assertThat(service.noToken("t")).as("not asked for").isEmpty();
	}

	@Test
	void busyLockThrowsSkipsOrFallsBackAsTheAnnotationSays() {
		locks.holdElsewhere("p:stock:pear");

		assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> service.purchase("pear"))
			.withMessageContaining("p:stock:pear");
		assertThat(service.skipped("pear")).isNull();
		assertThat(service.skippedOptional("pear")).isEmpty();
		assertThat(service.withFallback("pear")).isEqualTo("fallback for pear: p:stock:pear");
		assertThat(locks.events()).isEmpty();
	}

	@Test
	void failureInTheMethodStillReleasesTheLock() {
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> service.failing("f"));

		assertThat(locks.holder("p:failing:f")).isNull();
		assertThat(locks.events()).last().isEqualTo("unlock p:failing:f memory:thread");
	}

	@Test
	void fixedLeaseLostWhileTheMethodRanIsReportedAndFailsTheCall() {
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> service.losesItsLock("l"))
			.satisfies(ex -> assertThat(ex.getLockNames()).containsExactly("p:leased:l"));

		assertThat(lostLeases).containsExactly("p:leased:l memory:thread");
	}

	private Service proxy(Service target) {
		LockOperationSource operations = new LockOperationSource(new MethodExpressions(null), "p:", 0);
		LockAspectSupport support = new LockAspectSupport(locks, listener, operations,
				List.of(new CompletionStageHandler()), true, new LockCalls());
		ProxyFactory factory = new ProxyFactory(target);
		factory.setProxyTargetClass(true);
		factory.addAdvice(new LockInterceptor(() -> support));
		return (Service) factory.getProxy();
	}

	static class Service {

		private final InMemoryLocks locks;

		Service(InMemoryLocks locks) {
			this.locks = locks;
		}

		@DistributedLock(name = "stock", key = "#sku")
		public String purchase(String sku) {
			return "held by " + locks.holder("p:stock:" + sku);
		}

		@DistributedLock(name = "transfer", key = { "#from", "#to" })
		public void transfer(String from, String to) {
		}

		@DistributedLock(name = "fair", key = "#id", type = LockType.FAIR)
		public void fair(String id) {
		}

		@DistributedLock(name = "simple", key = "#id", type = LockType.SIMPLE)
		public void simple(String id) {
		}

		@DistributedLock(name = "token", key = "#id", fencingToken = true)
		public OptionalLong token(String id) {
			return LockContext.currentToken();
		}

		@DistributedLock(name = "token", key = "#id")
		public OptionalLong noToken(String id) {
			return LockContext.currentToken();
		}

		@DistributedLock(name = "stock", key = "#sku", onFailure = OnLockFailure.SKIP)
		public @Nullable String skipped(String sku) {
			return "ran";
		}

		@DistributedLock(name = "stock", key = "#sku", onFailure = OnLockFailure.SKIP)
		public Optional<String> skippedOptional(String sku) {
			return Optional.of("ran");
		}

		@DistributedLock(name = "stock", key = "#sku", onFailure = OnLockFailure.FALLBACK,
				fallbackMethod = "fallback")
		public String withFallback(String sku) {
			return "ran";
		}

		public String fallback(String sku, LockAcquisitionException failure) {
			return "fallback for " + sku + ": " + String.join(",", failure.getLockNames());
		}

		@DistributedLock(name = "failing", key = "#id")
		public void failing(String id) {
			throw new IllegalStateException("failed under the lock");
		}

		@DistributedLock(name = "leased", key = "#id", leaseTime = 5_000)
		public void losesItsLock(String id) {
			locks.lose("p:leased:" + id);
		}

	}

}

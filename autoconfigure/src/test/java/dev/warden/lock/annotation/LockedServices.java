package dev.warden.lock.annotation;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import dev.warden.Warden;
import dev.warden.lock.LockAcquisitionException;
import org.springframework.core.annotation.AliasFor;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Annotated beans for {@link DistributedLockAnnotationTests}. */
final class LockedServices {

	private LockedServices() {
	}

	record Order(String sku, int quantity) {
	}

	/** Names the locks held by the calling thread, as seen from inside the method. */
	static final class Probe {

		private final Warden warden;

		Probe(Warden warden) {
			this.warden = warden;
		}

		boolean heldHere(String name) {
			return warden.getLock(name).isHeldByCurrentThread();
		}

		boolean locked(String name) {
			return warden.getLock(name).isLocked();
		}

		public String region() {
			return "eu";
		}

		Warden warden() {
			return warden;
		}

	}

	@Target(ElementType.METHOD)
	@Retention(RetentionPolicy.RUNTIME)
	@DistributedLock(name = "inventory", onFailure = OnLockFailure.SKIP)
	@interface InventoryLock {

		@AliasFor(annotation = DistributedLock.class, attribute = "key")
		String[] value();

	}

	static class OrderService {

		private final Probe probe;

		int runs;

		OrderService(Probe probe) {
			this.probe = probe;
		}

		@DistributedLock(name = "orders", key = "#orderId")
		public boolean byName(long orderId) {
			runs++;
			return probe.heldHere("test:orders:" + orderId);
		}

		@DistributedLock(name = "orders", key = "#p0")
		public boolean byPosition(long orderId) {
			return probe.heldHere("test:orders:" + orderId);
		}

		@DistributedLock(name = "orders", key = "#order.sku")
		public boolean byProperty(Order order) {
			return probe.heldHere("test:orders:" + order.sku());
		}

		@DistributedLock(name = "orders", key = "#root.method.name + '-' + @probe.region()")
		public boolean byRootAndBean() {
			return probe.heldHere("test:orders:byRootAndBean-eu");
		}

		@DistributedLock
		public boolean byDefaultName() {
			return probe.heldHere("test:" + OrderService.class.getName() + ".byDefaultName");
		}

		@DistributedLock(name = "transfer", key = { "#to", "#from" })
		public List<Boolean> transfer(String from, String to) {
			runs++;
			return List.of(probe.heldHere("test:transfer:" + from), probe.heldHere("test:transfer:" + to));
		}

		@DistributedLock(name = "batch", key = "#skus")
		public boolean batch(List<String> skus) {
			return skus.stream().allMatch(sku -> probe.heldHere("test:batch:" + sku));
		}

		@DistributedLock(name = "orders", key = "#orderId")
		public void throwing(String orderId) {
			runs++;
		}

		@DistributedLock(name = "orders", key = "#orderId", onFailure = OnLockFailure.SKIP)
		public String skipped(String orderId) {
			runs++;
			return "ran";
		}

		@DistributedLock(name = "orders", key = "#orderId", onFailure = OnLockFailure.SKIP)
		public Optional<String> skippedOptional(String orderId) {
			runs++;
			return Optional.of("ran");
		}

		@DistributedLock(name = "orders", key = "#orderId", onFailure = OnLockFailure.FALLBACK,
				fallbackMethod = "busy")
		public String withFallback(String orderId) {
			return "ran";
		}

		String busy(String orderId) {
			return "busy " + orderId;
		}

		@DistributedLock(name = "orders", key = "#orderId", onFailure = OnLockFailure.FALLBACK,
				fallbackMethod = "busyBecause")
		public String withFallbackException(String orderId) {
			return "ran";
		}

		String busyBecause(String orderId, LockAcquisitionException failure) {
			return failure.getLockNames().toString();
		}

		@DistributedLock(name = "orders", key = "#orderId", waitTime = 2, timeUnit = java.util.concurrent.TimeUnit.SECONDS)
		public boolean waiting(String orderId) {
			return probe.heldHere("test:orders:" + orderId);
		}

		@DistributedLock(name = "orders", key = "#orderId", leaseTime = 2, timeUnit = java.util.concurrent.TimeUnit.SECONDS)
		public long leased(String orderId) {
			return probe.warden().getLock("test:orders:" + orderId).remainingTimeToLive();
		}

		@InventoryLock("#sku")
		public String meta(String sku) {
			runs++;
			return probe.heldHere("test:inventory:" + sku) ? "held" : "not held";
		}

		@DistributedLock(name = "outer", key = "#id")
		public boolean outer(String id, OrderService self) {
			return self.inner(id);
		}

		@DistributedLock(name = "outer", key = "#id")
		public boolean inner(String id) {
			return probe.warden().getLock("test:outer:" + id).getHoldCount() == 2;
		}

		@DistributedLock(name = "async", key = "#id")
		public CompletableFuture<Boolean> async(String id, CompletableFuture<Boolean> completion) {
			return completion;
		}

		@DistributedLock(name = "async", key = "#id", onFailure = OnLockFailure.SKIP)
		public CompletableFuture<String> asyncSkipped(String id) {
			return CompletableFuture.completedFuture("ran");
		}

		@DistributedLock(name = "reactive", key = "#id")
		public Mono<Boolean> mono(String id) {
			return Mono.fromCallable(() -> probe.locked("test:reactive:" + id));
		}

		@DistributedLock(name = "reactive", key = "#id")
		public Flux<Integer> flux(String id, Flux<Integer> source) {
			return source;
		}

		@DistributedLock(name = "reactive", key = "#id", onFailure = OnLockFailure.SKIP)
		public Mono<String> monoSkipped(String id) {
			return Mono.just("ran");
		}

	}

	@DistributedLock(name = "whole")
	static class WholeService {

		private final Probe probe;

		WholeService(Probe probe) {
			this.probe = probe;
		}

		public boolean first() {
			return probe.heldHere("test:whole");
		}

		public boolean second() {
			return probe.heldHere("test:whole");
		}

	}

}

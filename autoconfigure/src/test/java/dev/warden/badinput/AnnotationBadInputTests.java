package dev.warden.badinput;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.warden.WardenApplications;
import dev.warden.lock.annotation.DistributedLock;
import dev.warden.lock.annotation.OnLockFailure;
import dev.warden.task.annotation.DelayedTask;
import dev.warden.task.annotation.RecurringTask;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Mono;

import static dev.warden.badinput.BadInputCatalogue.expect;
import static dev.warden.badinput.BadInputCatalogue.expectStartupFailure;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rows of the annotations: an invalid one fails startup, naming the bean, the method and what
 * is wrong; a call whose arguments make a bad key or id throws without running the method or
 * scheduling anything.
 */
class AnnotationBadInputTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner runner = WardenApplications.runner(redis.node())
		.withPropertyValues("warden.delayed-task.shutdown-grace=1s");

	private void startupFails(String id, String beanName, Class<?> beanType) {
		expectStartupFailure(id, redis.node(), runner.withBean(beanName, beanType));
	}

	@Test
	void aLockKeyThatDoesNotParse() {
		startupFails("A01", "orders", InvalidKeyOrders.class);
	}

	@Test
	void aLockKeyNamingAnUnknownParameter() {
		startupFails("A02", "orders", UnknownParameterOrders.class);
	}

	@Test
	void aBlankLockKey() {
		startupFails("A03", "orders", BlankKeyOrders.class);
	}

	@Test
	void bracesInALockName() {
		startupFails("A04", "orders", BracedNameOrders.class);
	}

	@Test
	void aNegativeWaitTime() {
		startupFails("A05", "orders", NegativeWaitOrders.class);
	}

	@Test
	void aLeaseOfZero() {
		startupFails("A06", "orders", ZeroLeaseOrders.class);
	}

	@Test
	void anAbsurdLease() {
		startupFails("A07", "orders", AbsurdLeaseOrders.class);
	}

	@Test
	void aFallbackMethodThatDoesNotExist() {
		startupFails("A08", "orders", MissingFallbackOrders.class);
	}

	@Test
	void skippingAMethodThatReturnsAPrimitive() {
		startupFails("A09", "orders", SkippedIntOrders.class);
	}

	@Test
	void aDelayedTaskThatReturnsAValue() {
		startupFails("A10", "tasks", ReturnsValueTasks.class);
	}

	@Test
	void aPrivateDelayedTask() {
		startupFails("A11", "tasks", HiddenTasks.class);
	}

	@Test
	void bracesInAQueueName() {
		startupFails("A12", "tasks", BracedQueueTasks.class);
	}

	@Test
	void aNegativeDelay() {
		startupFails("A13", "tasks", NegativeDelayTasks.class);
	}

	@Test
	void aDelayThatIsNotADuration() {
		startupFails("A14", "tasks", SoonTasks.class);
	}

	@Test
	void noAttempts() {
		startupFails("A15", "tasks", NoAttemptsTasks.class);
	}

	@Test
	void aTaskIdThatDoesNotParse() {
		startupFails("A16", "tasks", InvalidIdTasks.class);
	}

	@Test
	void aParameterTypeThatLosesAField() {
		startupFails("A17", "tasks", LossyTasks.class);
	}

	@Test
	void twoDelayedTasksOnOneQueue() {
		startupFails("A18", "tasks", SharedQueueTasks.class);
	}

	@Test
	void aNegativeMinimumHold() {
		startupFails("A19", "orders", NegativeHoldOrders.class);
	}

	@Test
	void aRecurringTaskWithParameters() {
		startupFails("A20", "jobs", ParameterJobs.class);
	}

	@Test
	void aRecurringTaskWithACronThatCannotFire() {
		startupFails("A21", "jobs", BadCronJobs.class);
	}

	@Test
	void aRecurringTaskWithTwoSchedules() {
		startupFails("A22", "jobs", TwoScheduleJobs.class);
	}

	@Test
	void twoRecurringTasksWithOneName() {
		startupFails("A23", "jobs", SameNameJobs.class);
	}

	@Test
	void aLockedMethodReturningAFuture() {
		startupFails("A24", "orders", FutureOrders.class);
	}

	@Test
	void aLockedMethodReturningAPublisherNoHandlerTakes() {
		startupFails("A25", "orders", PublisherOrders.class);
	}

	@Test
	void aLockedMethodReturningAnOptionalOrAFutureAHandlerTakesStarts() {
		runner.withBean("orders", SupportedShapeOrders.class).run(context -> assertThat(context).hasNotFailed());
	}

	@Test
	void aLockKeyThatIsNull() {
		callFails("C01", orders -> orders.buy(null));
	}

	@Test
	void aLockKeyThatIsBlank() {
		callFails("C02", orders -> orders.buy(" "));
	}

	@Test
	void aLockKeyWithBraces() {
		callFails("C03", orders -> orders.buy("a{b}"));
	}

	@Test
	void aTaskIdThatIsBlank() {
		runner.withBean("tasks", Tasks.class).run(context -> {
			Tasks tasks = context.getBean(Tasks.class);
			expect("C04", redis.node(), () -> tasks.close(" "));
			assertThat(tasks.ran()).as("the method ran").isEmpty();
		});
	}

	@Test
	void taskArgumentsOverThePayloadLimit() {
		runner.withPropertyValues("warden.delayed-task.max-payload-size=1KB")
			.withBean("tasks", Tasks.class)
			.run(context -> {
				Tasks tasks = context.getBean(Tasks.class);
				expect("C05", redis.node(), () -> tasks.archive("o-1", "r-".repeat(600)));
				assertThat(tasks.ran()).as("the method ran").isEmpty();
			});
	}

	private void callFails(String id, java.util.function.Consumer<Orders> call) {
		runner.withBean("orders", Orders.class).run(context -> {
			Orders orders = context.getBean(Orders.class);
			expect(id, redis.node(), () -> call.accept(orders));
			assertThat(orders.bought()).as("the method ran").isEmpty();
		});
	}

	public static class Orders {

		final List<String> bought = new ArrayList<>();

		@DistributedLock(name = "stock", key = "#sku")
		public void buy(String sku) {
			bought.add(sku);
		}

		public List<String> bought() {
			return bought;
		}

	}

	public static class Tasks {

		final List<String> ran = new ArrayList<>();

		@DelayedTask(queue = "close", delay = "1h", id = "#orderId")
		public void close(String orderId) {
			ran.add(orderId);
		}

		@DelayedTask(queue = "archive", delay = "1h", id = "#orderId")
		public void archive(String orderId, String receipt) {
			ran.add(orderId);
		}

		public List<String> ran() {
			return ran;
		}

	}

	public static class InvalidKeyOrders {

		@DistributedLock(key = "#sku +")
		public void invalidKey(String sku) {
		}

	}

	public static class UnknownParameterOrders {

		@DistributedLock(key = "#skus")
		public void unknownParameter(String sku) {
		}

	}

	public static class BlankKeyOrders {

		@DistributedLock(key = "")
		public void blankKey(String sku) {
		}

	}

	public static class BracedNameOrders {

		@DistributedLock(name = "stock{eu}")
		public void bracedName(String sku) {
		}

	}

	public static class NegativeWaitOrders {

		@DistributedLock(waitTime = -5)
		public void negativeWait(String sku) {
		}

	}

	public static class ZeroLeaseOrders {

		@DistributedLock(leaseTime = 0)
		public void zeroLease(String sku) {
		}

	}

	public static class AbsurdLeaseOrders {

		@DistributedLock(leaseTime = 1000, timeUnit = TimeUnit.DAYS)
		public void absurdLease(String sku) {
		}

	}

	public static class MissingFallbackOrders {

		@DistributedLock(onFailure = OnLockFailure.FALLBACK, fallbackMethod = "nope")
		public String missingFallback(String sku) {
			return sku;
		}

	}

	public static class SkippedIntOrders {

		@DistributedLock(onFailure = OnLockFailure.SKIP)
		public int skipped(String sku) {
			return 1;
		}

	}

	public static class ReturnsValueTasks {

		@DelayedTask(delay = "1m")
		public String returnsValue(String orderId) {
			return orderId;
		}

	}

	public static class HiddenTasks {

		@DelayedTask(delay = "1m")
		private void hidden(String orderId) {
		}

	}

	public static class BracedQueueTasks {

		@DelayedTask(queue = "close{eu}", delay = "1m")
		public void braced(String orderId) {
		}

	}

	public static class NegativeDelayTasks {

		@DelayedTask(delay = "-5m")
		public void negativeDelay(String orderId) {
		}

	}

	public static class SoonTasks {

		@DelayedTask(delay = "soon")
		public void soon(String orderId) {
		}

	}

	public static class NoAttemptsTasks {

		@DelayedTask(delay = "1m", maxAttempts = 0)
		public void noAttempts(String orderId) {
		}

	}

	public static class InvalidIdTasks {

		@DelayedTask(delay = "1m", id = "#orderId +")
		public void invalidId(String orderId) {
		}

	}

	public static class NegativeHoldOrders {

		@DistributedLock(name = "report", holdAtLeast = -1)
		public void report() {
		}

	}

	public static class FutureOrders {

		@DistributedLock(key = "#sku")
		public Future<String> export(String sku) {
			return CompletableFuture.completedFuture(sku);
		}

	}

	public static class PublisherOrders {

		@DistributedLock(key = "#sku")
		public Flow.Publisher<String> stream(String sku) {
			return subscriber -> subscriber.onComplete();
		}

	}

	public static class SupportedShapeOrders {

		@DistributedLock(key = "#sku")
		public Optional<String> find(String sku) {
			return Optional.of(sku);
		}

		@DistributedLock(key = "#sku")
		public CompletableFuture<String> export(String sku) {
			return CompletableFuture.completedFuture(sku);
		}

		@DistributedLock(key = "#sku")
		public Mono<String> load(String sku) {
			return Mono.just(sku);
		}

		@DistributedLock(key = "#sku")
		public List<String> list(String sku) {
			return List.of(sku);
		}

	}

	public static class ParameterJobs {

		@RecurringTask(fixedRate = "1h")
		public void report(String day) {
		}

	}

	public static class BadCronJobs {

		@RecurringTask(cron = "0 0 25 * * *")
		public void report() {
		}

	}

	public static class TwoScheduleJobs {

		@RecurringTask(cron = "0 0 2 * * *", fixedRate = "1h")
		public void report() {
		}

	}

	public static class SameNameJobs {

		@RecurringTask(name = "report", fixedRate = "1h")
		public void first() {
		}

		@RecurringTask(name = "report", fixedRate = "2h")
		public void second() {
		}

	}

	public static class LossyTasks {

		@DelayedTask(delay = "1m")
		public void lossy(Bag bag) {
		}

	}

	/** A field JSON does not write: no getter. */
	public static class Bag {

		private int n;

		public Bag() {
		}

		public void setN(int n) {
			this.n = n;
		}

		@Override
		public String toString() {
			return "Bag " + n;
		}

	}

	public static class SharedQueueTasks {

		@DelayedTask(queue = "shared", delay = "1m")
		public void first(String orderId) {
		}

		@DelayedTask(queue = "shared", delay = "1m")
		public void second(String orderId) {
		}

	}

}

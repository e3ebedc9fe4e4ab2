package dev.warden.task.interceptor;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.warden.expression.MethodExpressions;
import dev.warden.json.JsonBindings;
import dev.warden.task.ConsumerOptions;
import dev.warden.task.DelayedQueue;
import dev.warden.task.DelayedQueueFactory;
import dev.warden.task.Delivery;
import dev.warden.task.PayloadCodec;
import dev.warden.task.ScheduleResult;
import dev.warden.task.TaskConsumer;
import dev.warden.task.TaskHandle;
import dev.warden.task.TaskHandler;
import dev.warden.task.annotation.DelayedTask;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.core.env.StandardEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The annotation's own logic, over queues that only record what they are asked: a call schedules
 * its arguments under the evaluated id with the annotation's delay and does not run; a delivery
 * runs the method through the bean and schedules nothing. The same behaviour against Redis is in
 * {@code DelayedTaskAnnotationTests}.
 */
class DelayedTaskSupportTests {

	private final RecordingQueues queues = new RecordingQueues();

	private final DelayedTaskOperationSource operations = new DelayedTaskOperationSource(new MethodExpressions(null),
			new StandardEnvironment(), JsonBindings.detect(), ConsumerOptions.DEFAULTS);

	private final DelayedTaskSupport support = new DelayedTaskSupport(queues, operations);

	private final Orders target = new Orders();

	private final Orders orders = proxy(target);

	@Test
	void callSchedulesItsArgumentsUnderTheEvaluatedIdAndDoesNotRun() {
		orders.closeIfUnpaid("o-1", 42);

		assertThat(queues.scheduled).containsExactly("orders o-1 [o-1, 42] PT30M");
		assertThat(target.ran).isEmpty();
	}

	@Test
	void aMethodThatReturnsATaskHandleGetsTheScheduledTasksIdBack() {
		TaskHandle handle = orders.expire("o-9");

		assertThat(handle.queue()).isEqualTo("expiries");
		assertThat(handle.id()).isEqualTo("expire-o-9");
		assertThat(handle.result().status()).isEqualTo(ScheduleResult.Status.SCHEDULED);
		assertThat(queues.scheduled).containsExactly("expiries expire-o-9 [o-9] PT10M");
		assertThat(target.ran).isEmpty();
	}

	@Test
	void theAnnotationSetsItsQueuesAttemptsBackoffAndVisibilityTimeout() {
		DelayedTaskOperation operation = operations.operationsOf(Orders.class)
			.stream()
			.filter(each -> each.queue().equals("expiries"))
			.findFirst()
			.orElseThrow();

		assertThat(operation.options().maxAttempts()).isEqualTo(2);
		assertThat(operation.options().backoff()).isEqualTo(Duration.ofSeconds(3));
		assertThat(operation.options().visibilityTimeout()).isEqualTo(Duration.ofMinutes(20));
	}

	@Test
	void callWithoutAnIdExpressionGetsAFreshIdEachTime() {
		orders.remind("a");
		orders.remind("a");

		assertThat(queues.scheduled).hasSize(2);
		assertThat(queues.scheduled.get(0)).isNotEqualTo(queues.scheduled.get(1)).endsWith("[a] PT1S");
	}

	@Test
	void idThatEvaluatesToNullSchedulesNothing() {
		assertThatIllegalArgumentException().isThrownBy(() -> orders.closeIfUnpaid(null, 1))
			.withMessageContaining("Task id of")
			.withMessageContaining("null");

		assertThat(queues.scheduled).isEmpty();
	}

	@Test
	void deliveryRunsTheMethodThroughTheBeanWithoutSchedulingIt() throws Exception {
		DelayedTaskOperation operation = operations.operationsOf(Orders.class)
			.stream()
			.filter(each -> each.queue().equals("orders"))
			.findFirst()
			.orElseThrow();
		support.consume(orders, operation);

		queues.handler.handle(new Delivery<>("orders", "o-2", new Object[] { "o-2", 7 }, 1));

		assertThat(target.ran).containsExactly("closed o-2 (7)");
		assertThat(queues.scheduled).isEmpty();
	}

	@Test
	void anArgumentTypeThatWouldLoseAFieldFailsTheAnnotationNamingMethodAndType() {
		DelayedTaskOperation operation = operations.operationsOf(LossyOrders.class).get(0);

		assertThatIllegalStateException().isThrownBy(() -> operations.checkArguments(operation))
			.withMessageContaining("LossyOrders.close(Bag)")
			.withMessageContaining("does not survive the trip through JSON")
			.withMessageContaining("Bag.n is not written to JSON");
	}

	private Orders proxy(Orders bean) {
		ProxyFactory factory = new ProxyFactory(bean);
		factory.setProxyTargetClass(true);
		factory.addAdvisor(new DelayedTaskInterceptor(operations, () -> support, 0));
		return (Orders) factory.getProxy();
	}

	public static class Orders {

		final List<String> ran = new ArrayList<>();

		@DelayedTask(queue = "orders", delay = "30m", id = "#orderId")
		public void closeIfUnpaid(@Nullable String orderId, int amount) {
			ran.add("closed " + orderId + " (" + amount + ")");
		}

		@DelayedTask(queue = "expiries", delay = "10m", id = "'expire-' + #orderId", maxAttempts = 2, backoff = "3s",
				visibilityTimeout = "20m")
		public TaskHandle expire(String orderId) {
			ran.add("expired " + orderId);
			return null;
		}

		@DelayedTask(queue = "reminders", delay = "1s")
		public void remind(String who) {
			ran.add("reminded " + who);
		}

	}

	public static class Bag {

		private int n;

		public Bag(int n) {
			this.n = n;
		}

	}

	public static class LossyOrders {

		@DelayedTask(queue = "lossy", delay = "1m")
		public void close(Bag bag) {
		}

	}

	/**
	 * A {@link DelayedQueueFactory} whose queues record each schedule as
	 * {@code "<queue> <id> <payload> <delay>"} and keep the last handler a consumer was given.
	 */
	static final class RecordingQueues implements DelayedQueueFactory {

		final List<String> scheduled = new ArrayList<>();

		@SuppressWarnings("rawtypes")
		TaskHandler handler;

		@Override
		@SuppressWarnings("unchecked")
		public <T> DelayedQueue<T> getDelayedQueue(String name, PayloadCodec<T> codec) {
			return (DelayedQueue<T>) Proxy.newProxyInstance(getClass().getClassLoader(),
					new Class<?>[] { DelayedQueue.class }, (proxy, method, args) -> switch (method.getName()) {
						case "schedule" -> {
							scheduled.add(name + " " + args[0] + " " + List.of((Object[]) args[1]) + " " + args[2]);
							yield new ScheduleResult(ScheduleResult.Status.SCHEDULED, Instant.now());
						}
						case "consume" -> {
							handler = (TaskHandler) args[0];
							yield consumer(name);
						}
						case "getName", "toString" -> name;
						default -> throw new UnsupportedOperationException(method.getName());
					});
		}

		@Override
		public boolean stopConsumers() {
			return true;
		}

		private static TaskConsumer consumer(String queue) {
			return new TaskConsumer() {
				@Override
				public String queue() {
					return queue;
				}

				@Override
				public boolean stop(Duration grace) {
					return true;
				}

				@Override
				public void close() {
				}
			};
		}

	}

}

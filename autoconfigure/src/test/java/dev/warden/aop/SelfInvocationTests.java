package dev.warden.aop;

import java.util.List;

import dev.warden.InvalidAnnotationException;
import dev.warden.WardenApplications;
import dev.warden.lock.annotation.DistributedLock;
import dev.warden.task.annotation.DelayedTask;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A bean that calls its own {@code @DelayedTask} or {@code @DistributedLock} method on {@code this}
 * bypasses its proxy; startup says so, naming the caller and the callee.
 */
@ExtendWith(OutputCaptureExtension.class)
class SelfInvocationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner runner = WardenApplications.runner(redis.node())
		.withPropertyValues("warden.delayed-task.shutdown-grace=1s");

	private static String startupFailure(AssertableApplicationContext context) {
		Throwable failure = context.getStartupFailure();
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof InvalidAnnotationException) {
				return cause.getMessage();
			}
		}
		throw new AssertionError("No InvalidAnnotationException in the startup failure", failure);
	}

	@Test
	void callsOnThisToOwnTaskAndLockMethodsFailStartupNamingCallerAndCallee() {
		runner.withBean("orders", SelfCallingOrders.class).run(context -> {
			assertThat(context).hasFailed();
			assertThat(startupFailure(context)).contains("Bean 'orders' calls its own advised methods on this")
				.contains(SelfCallingOrders.class.getName() + ".placeOrder(String) calls its own @DelayedTask method "
						+ SelfCallingOrders.class.getName() + ".closeIfUnpaid(String) on this, which runs at once, "
						+ "inline, instead of being scheduled")
				.contains(SelfCallingOrders.class.getName() + ".placeOrder(String) calls its own @DistributedLock "
						+ "method " + SelfCallingOrders.class.getName() + ".adjustStock(String, int) on this, which "
						+ "runs without its lock")
				.contains("Move the called method to another bean")
				.contains("warden.self-invocation=warn");
		});
	}

	@Test
	void aCallInALambdaIsOneToo() {
		runner.withBean("orders", LambdaOrders.class).run(context -> {
			assertThat(context).hasFailed();
			assertThat(startupFailure(context)).contains("a lambda in " + LambdaOrders.class.getName() + ".placeOrder")
				.contains("adjustStock(String)");
		});
	}

	@Test
	void aCallInAnAnonymousOrInnerClassIsOneToo() {
		runner.withBean("orders", AnonymousClassOrders.class).run(context -> {
			assertThat(context).hasFailed();
			String orders = AnonymousClassOrders.class.getName();
			assertThat(startupFailure(context))
				.contains(orders + ".placeOrderLater(String) calls its own @DistributedLock method " + orders
						+ ".adjustStock(String) on this")
				.contains(orders + ".checker() calls its own @DistributedLock method " + orders
						+ ".adjustStock(String) on this");
		});
	}

	@Test
	void callsThroughTheBeansOwnProxyOrOnAnotherInstanceAreFine() {
		runner.withBean("orders", ProxyCallingOrders.class).run(context -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(ProxyCallingOrders.class).placeOrder("o-1")).isEqualTo("placed o-1");
		});
	}

	@Test
	void aLockedMethodCallingItselfIsFine() {
		runner.withBean("walker", RecursiveWalker.class).run(context -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(RecursiveWalker.class).walk("tree", 3)).isEqualTo(3);
		});
	}

	@Test
	void aRecordsCallsAreCheckedToo() {
		runner.withPropertyValues("spring.aop.proxy-target-class=false")
			.withBean("reports", Reports.class, () -> new ReportRecord("daily"))
			.run(context -> {
				assertThat(context).hasFailed();
				assertThat(startupFailure(context)).contains(ReportRecord.class.getName() + ".publish() calls its own "
						+ "@DistributedLock method " + ReportRecord.class.getName() + ".render(String)");
			});
	}

	@Test
	void warnOnlyLogsAndStarts(CapturedOutput output) {
		runner.withPropertyValues("warden.self-invocation=warn").withBean("orders", SelfCallingOrders.class).run(context -> {
			assertThat(context).hasNotFailed();
			assertThat(output).contains("Bean 'orders' calls its own advised methods on this")
				.contains("closeIfUnpaid(String)");
		});
	}

	@Test
	void ignoreDoesNotLook(CapturedOutput output) {
		runner.withPropertyValues("warden.self-invocation=ignore").withBean("orders", SelfCallingOrders.class).run(context -> {
			assertThat(context).hasNotFailed();
			assertThat(output).doesNotContain("calls its own advised methods");
		});
	}

	public static class SelfCallingOrders {

		public String placeOrder(String orderId) {
			adjustStock(orderId, -1);
			this.closeIfUnpaid(orderId);
			return "placed " + orderId;
		}

		@DelayedTask(queue = "self-close", delay = "30m")
		public void closeIfUnpaid(String orderId) {
		}

		@DistributedLock(name = "stock", key = "#sku")
		public void adjustStock(String sku, int delta) {
		}

	}

	public static class LambdaOrders {

		public void placeOrder(List<String> skus) {
			skus.forEach(sku -> adjustStock(sku));
		}

		@DistributedLock(name = "stock", key = "#sku")
		public void adjustStock(String sku) {
		}

	}

	public static class AnonymousClassOrders {

		public Runnable placeOrderLater(String sku) {
			return new Runnable() {
				@Override
				public void run() {
					adjustStock(sku);
				}
			};
		}

		public Checker checker() {
			return new Checker();
		}

		@DistributedLock(name = "stock", key = "#sku")
		public void adjustStock(String sku) {
		}

		public class Checker {

			public void check(String sku) {
				adjustStock(sku);
			}

		}

	}

	public static class ProxyCallingOrders {

		private final ObjectProvider<ProxyCallingOrders> self;

		public ProxyCallingOrders(ObjectProvider<ProxyCallingOrders> self) {
			this.self = self;
		}

		public String placeOrder(String orderId) {
			self.getObject().adjustStock(orderId);
			ProxyCallingOrders proxy = self.getObject();
			proxy.closeIfUnpaid(orderId);
			return "placed " + orderId;
		}

		/** A call on another instance of the class: not this one's proxy's business. */
		public void adjustBoth(ProxyCallingOrders other, String sku) {
			other.adjustStock(sku);
		}

		@DelayedTask(queue = "proxy-close", delay = "30m")
		public void closeIfUnpaid(String orderId) {
		}

		@DistributedLock(name = "stock", key = "#sku")
		public void adjustStock(String sku) {
		}

	}

	public static class RecursiveWalker {

		@DistributedLock(name = "walk", key = "#root.args[0]")
		public int walk(String tree, int depth) {
			return (depth == 0) ? 0 : 1 + walk(tree, depth - 1);
		}

	}

	public interface Reports {

		String publish();

		String render(String format);

	}

	public record ReportRecord(String name) implements Reports {

		@Override
		public String publish() {
			return render("pdf");
		}

		@Override
		@DistributedLock(name = "report")
		public String render(String format) {
			return name + "." + format;
		}

	}


}

package dev.warden.aot;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;

import dev.warden.lock.LockAcquisitionException;
import dev.warden.lock.annotation.DistributedLock;
import dev.warden.lock.annotation.OnLockFailure;
import dev.warden.task.annotation.DelayedTask;
import dev.warden.task.annotation.RecurringTask;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.annotation.ReflectiveRuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hints a native image needs: every Lua script on the class path, the JDK methods reached
 * reflectively for virtual threads, and, for beans with Warden's annotations, the annotated
 * methods, their fallbacks and the types of their arguments.
 */
class WardenRuntimeHintsTests {

	private final RuntimeHints hints = new RuntimeHints();

	@Test
	void everyLuaScriptIsARegisteredResource() throws Exception {
		new WardenRuntimeHints().registerHints(hints, getClass().getClassLoader());

		Resource[] scripts = new PathMatchingResourcePatternResolver().getResources("classpath*:dev/warden/**/*.lua");
		List<String> paths = new ArrayList<>();
		for (Resource script : scripts) {
			String url = script.getURL().toString();
			paths.add(url.substring(url.indexOf("dev/warden/")));
		}
		assertThat(paths).as("scripts found").hasSizeGreaterThan(40).contains("dev/warden/lock/redis/simple-acquire.lua",
				"dev/warden/redis/redis-clock.lua");
		assertThat(paths).allSatisfy(path -> assertThat(RuntimeHintsPredicates.resource().forResource(path))
			.as(path)
			.accepts(hints));
		assertThat(RuntimeHintsPredicates.resource().forResource("dev/warden/lock/redis/LockScripts.class"))
			.as("only scripts")
			.rejects(hints);
	}

	@Test
	void theDashboardPageIsARegisteredResource() {
		new WardenRuntimeHints().registerHints(hints, getClass().getClassLoader());

		assertThat(getClass().getClassLoader().getResource(WardenRuntimeHints.DASHBOARD)).as("the page").isNotNull();
		assertThat(RuntimeHintsPredicates.resource().forResource(WardenRuntimeHints.DASHBOARD)).accepts(hints);
	}

	@Test
	void theBuildsVersionIsARegisteredResource() {
		new WardenRuntimeHints().registerHints(hints, getClass().getClassLoader());

		assertThat(getClass().getClassLoader().getResource(WardenRuntimeHints.VERSION)).as("the version").isNotNull();
		assertThat(RuntimeHintsPredicates.resource().forResource(WardenRuntimeHints.VERSION)).accepts(hints);
	}

	@Test
	void theJdkMethodsBehindVirtualThreadsAreRegistered() {
		new WardenRuntimeHints().registerHints(hints, getClass().getClassLoader());

		// Read from the hints themselves: on Java 17 the methods do not exist to be looked up.
		assertThat(hints.reflection().getTypeHint(Thread.class).methods())
			.anySatisfy(method -> assertThat(method.getName()).isEqualTo("ofVirtual"));
		assertThat(hints.reflection().getTypeHint(Executors.class).methods()).anySatisfy(method -> {
			assertThat(method.getName()).isEqualTo("newThreadPerTaskExecutor");
			assertThat(method.getParameterTypes()).containsExactly(TypeReference.of(ThreadFactory.class));
		});
		assertThat(hints.reflection().getTypeHint(TypeReference.of("java.lang.Thread$Builder"))).isNotNull();
	}

	@Test
	void theCommandConnectionsChannelIsReadable() throws Exception {
		new WardenRuntimeHints().registerHints(hints, getClass().getClassLoader());

		assertThat(RuntimeHintsPredicates.reflection()
			.onFieldAccess(io.lettuce.core.protocol.DefaultEndpoint.class.getDeclaredField("channel"))).accepts(hints);
	}

	@Test
	void theClientsSentinelUriIsReadable() throws Exception {
		new WardenRuntimeHints().registerHints(hints, getClass().getClassLoader());

		assertThat(RuntimeHintsPredicates.reflection()
			.onFieldAccess(io.lettuce.core.RedisClient.class.getDeclaredField("redisURI"))).accepts(hints);
	}

	@Test
	void theAnnotationsAttributesAreReadable() {
		new WardenRuntimeHints().registerHints(hints, getClass().getClassLoader());

		for (Class<?> annotation : List.of(DistributedLock.class, DelayedTask.class, RecurringTask.class)) {
			assertThat(RuntimeHintsPredicates.reflection()
				.onType(annotation)
				.withMemberCategory(MemberCategory.INVOKE_DECLARED_METHODS)).as(annotation.getName()).accepts(hints);
		}
	}

	@Test
	void theHintsAreRegisteredThroughAotFactories() {
		assertThat(SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
			.load(org.springframework.aot.hint.RuntimeHintsRegistrar.class))
			.hasAtLeastOneElementOfType(WardenRuntimeHints.class);
	}

	@Test
	void aDelayedTaskMethodIsInvocableAndItsArgumentsBindToJson() throws Exception {
		new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(hints, Orders.class);

		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(Orders.class.getMethod("closeIfUnpaid", Reminder.class, List.class))).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(Reminder.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Reminder.class, "orderId")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(Line.class)).as("a type inside a list").accepts(hints);
	}

	@Test
	void aLockedMethodsFallbackIsInvocableAndItsKeyArgumentsReadable() throws Exception {
		new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(hints, Orders.class);

		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(Orders.class.getMethod("pay", Reminder.class))).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(Orders.class.getMethod("payLater", Reminder.class, LockAcquisitionException.class)))
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Orders.class, "unrelated")).rejects(hints);
	}

	@Test
	void aRecurringTaskMethodIsInvocable() throws Exception {
		new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(hints, Orders.class);

		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Orders.class.getMethod("nightly")))
			.accepts(hints);
	}

	@Test
	void aClassLevelLockCoversItsPublicMethods() throws Exception {
		new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(hints, LockedEverywhere.class);

		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(LockedEverywhere.class.getMethod("ship", Line.class))).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(Line.class)).accepts(hints);
	}

	record Reminder(long orderId, String sku) {
	}

	record Line(String sku, int quantity) {
	}

	static class Orders {

		@DelayedTask(queue = "reminders", delay = "30m")
		public void closeIfUnpaid(Reminder reminder, List<Line> lines) {
		}

		@DistributedLock(name = "pay", key = "#reminder.orderId", onFailure = OnLockFailure.FALLBACK,
				fallbackMethod = "payLater")
		public CompletableFuture<String> pay(Reminder reminder) {
			return CompletableFuture.completedFuture("paid");
		}

		public CompletableFuture<String> payLater(Reminder reminder, LockAcquisitionException failure) {
			return CompletableFuture.completedFuture("later");
		}

		@RecurringTask(cron = "0 0 2 * * *")
		public void nightly() {
		}

		public void unrelated() {
		}

	}

	@DistributedLock(name = "shipping")
	static class LockedEverywhere {

		public void ship(Line line) {
		}

	}

}

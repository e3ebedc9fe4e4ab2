package dev.warden.test;

import java.util.List;

import dev.warden.Warden;
import dev.warden.autoconfigure.WardenBuilderCustomizer;
import dev.warden.autoconfigure.WardenProperties;
import dev.warden.lock.interceptor.LockCalls;
import dev.warden.redis.KeyNamespace;
import dev.warden.task.interceptor.DelayedTaskCalls;
import dev.warden.task.interceptor.DelayedTaskRegistrar;
import dev.warden.task.interceptor.RecurringTaskRegistrar;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The beans a {@link WardenTest} adds to the test's application: the test clock on the
 * application's Warden client, the {@link TaskClock}, the {@link TaskModes} and the recorders.
 */
@Configuration(proxyBeanMethods = false)
class WardenTestConfiguration {

	@Bean
	WardenBuilderCustomizer wardenTestClockCustomizer() {
		return builder -> builder.testClock(true);
	}

	@Bean
	TaskArguments wardenTaskArguments(ObjectProvider<Warden> warden, ObjectProvider<DelayedTaskRegistrar> registrar) {
		return new TaskArguments(warden, registrar);
	}

	@Bean
	TaskRecorder wardenTaskRecorder(TaskArguments wardenTaskArguments) {
		return new TaskRecorder(wardenTaskArguments);
	}

	@Bean
	LockRecorder wardenLockRecorder(Environment environment) {
		return new LockRecorder(properties(environment).lockKeyPrefix());
	}

	@Bean
	LockCalls.Listener wardenLockRecorderListener(LockRecorder wardenLockRecorder) {
		return wardenLockRecorder.listener();
	}

	@Bean
	TaskModes wardenTaskModes() {
		return new TaskModes();
	}

	@Bean
	DelayedTaskCalls wardenTaskModesCalls(TaskModes wardenTaskModes) {
		return wardenTaskModes.interceptor();
	}

	@Bean
	TestRedisKeys wardenTestRedisKeys(Environment environment, ObjectProvider<TestRedis> testRedis) {
		Binder binder = Binder.get(environment);
		WardenProperties properties = properties(environment);
		return new TestRedisKeys(KeyNamespace.of(properties.getNamespace()), properties.lockKeyPrefix(),
				binder.bind(TestRedisKeys.RESET_KEYS, Bindable.listOf(String.class)).orElse(List.of()),
				binder.bind(TestRedisKeys.RESET_SHARED_REDIS, Boolean.class).orElse(false), testRedis.getIfAvailable());
	}

	/** The application's {@code warden.*} settings. */
	static WardenProperties properties(Environment environment) {
		return Binder.get(environment).bindOrCreate("warden", WardenProperties.class);
	}

	@Bean
	TaskClock wardenTaskClock(ObjectProvider<Warden> warden, TaskRecorder wardenTaskRecorder,
			ObjectProvider<RedisConnectionFactory> connections, ObjectProvider<RecurringTaskRegistrar> recurring,
			ObjectProvider<TestRedisKeys> wardenTestRedisKeys) {
		return new TaskClock(warden, wardenTaskRecorder, connections, recurring, wardenTestRedisKeys);
	}

}

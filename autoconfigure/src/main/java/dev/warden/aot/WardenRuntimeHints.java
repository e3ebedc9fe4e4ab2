package dev.warden.aot;

import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;

import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;

/**
 * What a native image of an application that uses Warden needs and cannot find by itself: the Lua
 * scripts, read as resources, the attributes of its annotations, read reflectively, and the JDK
 * methods that run task handlers on virtual threads,
 * reached reflectively so that Warden's bytecode stays Java 17's. Registered through
 * {@code META-INF/spring/aot.factories}. The annotated methods themselves and their argument types
 * are registered by {@link WardenAnnotationsReflectiveProcessor}.
 */
public final class WardenRuntimeHints implements RuntimeHintsRegistrar {

	/** Every script Warden loads, and the preludes they are put behind. */
	public static final String SCRIPTS = "dev/warden/**/*.lua";

	/** The dashboard page, served from the jar. */
	public static final String DASHBOARD = "dev/warden/actuate/dashboard.html";

	/** The build's version, which each client announces to the others on its Redis. */
	public static final String VERSION = "dev/warden/warden-version.properties";

	/** The outbox table's DDL, one file per database. */
	public static final String OUTBOX_SCHEMAS = "dev/warden/task/transaction/schema-*.sql";

	/** Warden's annotations, by name: they name this package's processor, which should not name them back. */
	static final String[] ANNOTATIONS = { WardenAnnotationsReflectiveProcessor.DISTRIBUTED_LOCK,
			"dev.warden.task.annotation.DelayedTask", "dev.warden.task.annotation.RecurringTask" };

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern(SCRIPTS);
		hints.resources().registerPattern(DASHBOARD);
		hints.resources().registerPattern(VERSION);
		hints.resources().registerPattern(OUTBOX_SCHEMAS);
		// Their attributes are read reflectively (MergedAnnotations), on every annotated bean.
		for (String annotation : ANNOTATIONS) {
			hints.reflection().registerType(TypeReference.of(annotation), MemberCategory.INVOKE_DECLARED_METHODS);
		}
		hints.reflection()
			.registerType(Thread.class, type -> type.withMethod("ofVirtual", List.of(), ExecutableMode.INVOKE))
			.registerType(TypeReference.of("java.lang.Thread$Builder"), MemberCategory.INVOKE_PUBLIC_METHODS)
			.registerType(TypeReference.of("java.lang.Thread$Builder$OfVirtual"), MemberCategory.INVOKE_PUBLIC_METHODS)
			.registerType(Executors.class, type -> type.withMethod("newThreadPerTaskExecutor",
					List.of(TypeReference.of(ThreadFactory.class)), ExecutableMode.INVOKE))
			// The command connection's channel, for commands sent at once to share socket writes.
			.registerType(TypeReference.of("io.lettuce.core.protocol.DefaultEndpoint"),
					type -> type.withField("channel"))
			// The client's Sentinel URI: only with one are Sentinel announcements followed.
			.registerType(TypeReference.of("io.lettuce.core.RedisClient"), type -> type.withField("redisURI"));
	}

}

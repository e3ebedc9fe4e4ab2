package dev.warden.samples.invoices;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;

import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The application as its team ships it: the packaged jar, started with {@code java -jar}. It holds
 * Boot 3.5's own versions of everything (Jackson 2.19 among them, and no Jackson 3), starts, takes
 * an invoice's lock, and its reminder runs with the arguments its own ObjectMapper wrote.
 */
class InvoicesJarIT {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static final Path JAR = Path.of(System.getProperty("invoices.jar", "target/missing.jar"));

	@Test
	void theJarHoldsBootsManagedVersionsAndNoJackson3() throws Exception {
		List<String> libraries;
		try (JarFile jar = new JarFile(JAR.toFile())) {
			libraries = jar.stream()
				.map(entry -> entry.getName())
				.filter(name -> name.startsWith("BOOT-INF/lib/"))
				.map(name -> name.substring("BOOT-INF/lib/".length()))
				.toList();
		}
		assertThat(libraries).anyMatch(name -> name.startsWith("warden-spring-boot3-starter-"))
			.anyMatch(name -> name.startsWith("jackson-annotations-2.19."))
			.anyMatch(name -> name.startsWith("jackson-databind-2.19."))
			.anyMatch(name -> name.startsWith("spring-core-6.2."))
			.noneMatch(name -> name.matches("jackson-(core|databind)-3\\..*"))
			.noneMatch(name -> name.startsWith("kotlin-stdlib"));
	}

	@Test
	void theJarStartsAndItsReminderRunsWithTheArgumentsItsObjectMapperWrote() throws Exception {
		assertThat(JAR).exists();
		Process app = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
				JAR.toString(), "--spring.data.redis.host=" + redis.node().host(),
				"--spring.data.redis.port=" + redis.node().port(), "--invoices.issue=INV-7",
				"--invoices.reminder-delay=200ms")
			.redirectErrorStream(true)
			.start();
		CountDownLatch reminded = new CountDownLatch(1);
		StringBuffer output = new StringBuffer();
		Thread reader = new Thread(() -> {
			try (BufferedReader lines = new BufferedReader(
					new InputStreamReader(app.getInputStream(), StandardCharsets.UTF_8))) {
				for (String line = lines.readLine(); line != null; line = lines.readLine()) {
					output.append(line).append('\n');
					if (line.contains("Reminder sent for invoice INV-7: 12.50 EUR")) {
						reminded.countDown();
					}
				}
			}
			catch (java.io.IOException ex) {
				// The process ended.
			}
			reminded.countDown();
		}, "invoices-output");
		reader.setDaemon(true);
		reader.start();
		try {
			assertThat(reminded.await(180, TimeUnit.SECONDS)).as("the application's output within 180 s").isTrue();
			assertThat(output.toString()).as(output.toString())
				.contains("Reminder sent for invoice INV-7: 12.50 EUR")
				.doesNotContain("NoClassDefFoundError");
			assertThat(app.isAlive()).as(output.toString()).isTrue();
			Object escalation = redis.node().call("HGET", "warden:task:{invoice-escalations}:tasks", "INV-7");
			assertThat(escalation).as("the escalation, in a week, as the application's ObjectMapper wrote it")
				.asString()
				.startsWith("{\"number\":\"INV-7\",\"amount\":\"12.50 EUR\",\"issued_at\":\"")
				.endsWith("Z\"}");
		}
		finally {
			app.destroy();
			if (!app.waitFor(30, TimeUnit.SECONDS)) {
				app.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
			}
		}
	}

}

package dev.warden.samples.orders;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.warden.Warden;
import dev.warden.ratelimit.annotation.RateLimited;
import dev.warden.task.ConsumerOptions;
import dev.warden.task.DelayedQueue;
import dev.warden.task.TaskConsumer;
import dev.warden.task.TaskListener;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.web.SecurityFilterChain;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard of a running order service, in the system's headless Chromium: the queue table
 * shows what Redis holds, a queue's dead letters show their errors, and the re-drive button puts a
 * dead letter back in its queue, also under Spring Security with CSRF protection on, and the page
 * refreshes one request at a time however slow the answers. Saves a
 * screenshot to {@code target/dashboard.png}.
 */
class DashboardBrowserTests {

	private static final File CHROMIUM = new File("/usr/bin/chromium");

	private static final File CHROMEDRIVER = new File("/usr/bin/chromedriver");

	private static final Duration WAIT = Duration.ofSeconds(20);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private ConfigurableApplicationContext service;

	private ChromeDriver browser;

	@BeforeEach
	void start(@TempDir Path profile) {
		assertThat(CHROMIUM.canExecute()).as("Debian's chromium (apt-get install chromium chromium-driver)").isTrue();
		assertThat(CHROMEDRIVER.canExecute()).as("Debian's chromedriver (apt-get install chromium chromium-driver)").isTrue();
		ChromeOptions options = new ChromeOptions();
		options.setBinary(CHROMIUM);
		// The flags of a headless browser on a machine with no network but loopback.
		options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
				"--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
				"--disable-sync", "--window-size=1400,1100", "--user-data-dir=" + profile.toAbsolutePath());
		ChromeDriverService driverService = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER)
			.usingAnyFreePort()
			.build();
		browser = new ChromeDriver(driverService, options);
		browser.manage().timeouts().pageLoadTimeout(WAIT).scriptTimeout(WAIT);
	}

	@AfterEach
	void stop() {
		if (browser != null) {
			browser.quit();
		}
		if (service != null) {
			service.close();
		}
	}

	/** The order service, with {@code more} configuration. */
	private void startService(Class<?>... more) {
		List<Class<?>> sources = new ArrayList<>(List.of(OrderServiceApplication.class, DeadLetters.class, Exports.class));
		sources.addAll(List.of(more));
		redis.node().call("FLUSHALL");
		service = new SpringApplicationBuilder(sources.toArray(Class<?>[]::new)).run("--server.port=0",
				"--spring.data.redis.host=" + redis.node().host(), "--spring.data.redis.port=" + redis.node().port(),
				"--spring.datasource.url=jdbc:h2:mem:dashboard;DB_CLOSE_DELAY=-1",
				// The receipts queue is the test's, not consumed by the service.
				"--warden.endpoint.write-scope=all-queues");
	}

	@Test
	void underSpringSecurityWithCsrfOnThePageSendsItsTokenWithTheReDrive() throws Exception {
		startService(CsrfProtection.class);
		Warden warden = service.getBean(Warden.class);
		DelayedQueue<String> receipts = warden.getDelayedQueue("receipts", String.class);
		killTasks(receipts, "receipt-2001");

		browser.get("http://localhost:" + port() + "/actuator/warden/dashboard");
		WebDriverWait wait = new WebDriverWait(browser, WAIT);
		wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#queues tr[data-queue='receipts']")))
			.click();
		wait.until(ExpectedConditions.presenceOfElementLocated(
				By.cssSelector("#dead-letters tr[data-task='receipt-2001'] button.redrive")))
			.click();

		wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"), "Re-drove 1 dead letter(s)"));
		assertThat(receipts.deadLetterCount()).isZero();
		assertThat(receipts.contains("receipt-2001")).as("pending again").isTrue();
	}

	@Test
	void theQueueTableShowsRedisAndADeadLetterIsReDrivenFromThePage() throws Exception {
		startService();
		Warden warden = service.getBean(Warden.class);
		DelayedQueue<String> receipts = warden.getDelayedQueue("receipts", String.class);
		killTasks(receipts, "receipt-1001", "receipt-1002");
		receipts.schedule("receipt-1003", "{\"order\":1003}", Duration.ofMinutes(5));
		service.getBean(OrderService.class).purchase("apple", 1);

		browser.get("http://localhost:" + port() + "/actuator/warden/dashboard");
		WebDriverWait wait = new WebDriverWait(browser, WAIT);
		WebElement row = wait.until(ExpectedConditions
			.presenceOfElementLocated(By.cssSelector("#queues tr[data-queue='receipts']")));

		List<String> cells = row.findElements(By.tagName("td")).stream().map(WebElement::getText).toList();
		// Name, pending, deferred, in flight, dead letters.
		assertThat(cells.subList(0, 5)).containsExactly("receipts", "1", "0", "0", "2");
		assertThat(browser.findElement(By.cssSelector("#queues tr[data-queue='" + OrderTimeouts.QUEUE + "']"))
			.getText()).as("the order's payment timeout").contains(OrderTimeouts.QUEUE + " 1 0 0 0");
		assertThat(browser.findElement(By.id("client")).getText()).contains(warden.getClientId());
		assertThat(browser.findElement(By.cssSelector("#rate-limits tbody")).getText())
			.as("a rate limit of the application")
			.contains("exports", "5 per PT1M", "export(");
		assertThat(browser.findElement(By.cssSelector("#fleet tbody")).getText()).as("this instance in the fleet")
			.contains(warden.getClientId() + " (this one)", warden.fleet().get(0).version(), "limiters 1, tasks 2");

		row.click();
		wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#dead-letters tr[data-task]"), 2));
		WebElement letter = browser.findElement(By.cssSelector("#dead-letters tr[data-task='receipt-1002']"));
		assertThat(letter.getText()).contains("printer jammed");
		assertThat(browser.findElement(By.cssSelector("#pending tr[data-task='receipt-1003']")).getText())
			.contains("receipt-1003");
		saveScreenshot();

		letter.findElement(By.cssSelector("button.redrive")).click();

		wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"), "Re-drove 1 dead letter(s)"));
		wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#dead-letters tr[data-task]"), 1));
		assertThat(receipts.deadLetters(0, 10)).extracting(letterInRedis -> letterInRedis.id())
			.containsExactly("receipt-1001");
		assertThat(receipts.contains("receipt-1002")).as("pending again").isTrue();
		wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#pending tr[data-task='receipt-1002']")));
	}

	/**
	 * Before the page's own script runs: its timers of a second or more fire after 50 ms, and each
	 * answer of the overview is held 300 ms, longer than that; counts the overview requests under
	 * way at once.
	 */
	private static final String SLOW_OVERVIEW = """
			(function () {
			  var realSetTimeout = window.setTimeout.bind(window);
			  var realSetInterval = window.setInterval.bind(window);
			  window.setTimeout = function (f, ms) { return realSetTimeout(f, ms >= 1000 ? 50 : ms); };
			  window.setInterval = function (f, ms) { return realSetInterval(f, ms >= 1000 ? 50 : ms); };
			  var realFetch = window.fetch.bind(window);
			  var overviews = window.overviews = { started: 0, underWay: 0, most: 0 };
			  window.fetch = function (url, init) {
			    if (!String(url).endsWith('/actuator/warden')) { return realFetch(url, init); }
			    overviews.started++;
			    overviews.underWay++;
			    overviews.most = Math.max(overviews.most, overviews.underWay);
			    return realFetch(url, init).then(function (response) {
			      return new Promise(function (resolve) {
			        realSetTimeout(function () { overviews.underWay--; resolve(response); }, 300);
			      });
			    });
			  };
			}());
			""";

	@Test
	void aRefreshStartsOnlyOnceThePreviousOneHasEndedHoweverSlowTheAnswers() {
		startService();
		browser.executeCdpCommand("Page.addScriptToEvaluateOnNewDocument", Map.of("source", SLOW_OVERVIEW));

		browser.get("http://localhost:" + port() + "/actuator/warden/dashboard");

		new WebDriverWait(browser, WAIT).until(driver -> ((Number) browser
			.executeScript("return window.overviews.started")).intValue() >= 4);
		assertThat(((Number) browser.executeScript("return window.overviews.most")).intValue())
			.as("overview requests under way at once").isEqualTo(1);
	}

	private void killTasks(DelayedQueue<String> queue, String... ids) throws Exception {
		for (String id : ids) {
			queue.schedule(id, "{\"order\":" + id.substring(id.indexOf('-') + 1) + "}", Duration.ZERO);
		}
		ConsumerOptions once = new ConsumerOptions(1, Duration.ofMillis(50), Duration.ofSeconds(1), Duration.ofMinutes(1));
		CountDownLatch died = new CountDownLatch(ids.length);
		service.getBean(DeadLetters.class).latch = died;
		try (TaskConsumer consumer = queue.consume(delivery -> {
			throw new IllegalStateException("printer jammed");
		}, once)) {
			assertThat(died.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the receipts died in time").isTrue();
		}
		assertThat(queue.deadLetterCount()).isEqualTo(ids.length);
	}

	/** Spring Security on the dashboard's paths, its CSRF protection on (as by default). */
	@Configuration(proxyBeanMethods = false)
	@EnableWebSecurity
	static class CsrfProtection {

		@Bean
		SecurityFilterChain dashboard(HttpSecurity http) throws Exception {
			http.securityMatcher("/actuator/**").authorizeHttpRequests(requests -> requests.anyRequest().permitAll());
			return http.build();
		}

	}

	/** A rate-limited method the dashboard lists. */
	static class Exports {

		@RateLimited(name = "exports", key = "#customer", permits = "5", period = "1m")
		public void export(String customer) {
		}

	}

	/** Counts down when a delivery run by the service moves its task to the dead letters. */
	static class DeadLetters implements TaskListener {

		volatile CountDownLatch latch = new CountDownLatch(0);

		@Override
		public void onFailed(String queue, long durationNanos, boolean dead) {
			if (dead) {
				latch.countDown();
			}
		}

	}

	private int port() {
		return ((WebServerApplicationContext) service).getWebServer().getPort();
	}

	private void saveScreenshot() throws IOException {
		Path shot = browser.getScreenshotAs(OutputType.FILE).toPath();
		Path target = Path.of("target", "dashboard.png");
		Files.createDirectories(target.getParent());
		Files.copy(shot, target, StandardCopyOption.REPLACE_EXISTING);
	}

}

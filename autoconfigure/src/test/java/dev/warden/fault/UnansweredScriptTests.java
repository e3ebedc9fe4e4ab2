package dev.warden.fault;

import java.time.Duration;

import dev.warden.RedisUnavailableException;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.lock.DistributedCountDownLatch;
import dev.warden.lock.DistributedSemaphore;
import dev.warden.ratelimit.DistributedRateLimiter;
import dev.warden.ratelimit.RateLimit;
import dev.warden.test.redis.RedisServerExtension;
import dev.warden.test.redis.TcpProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A script whose connection closes normally after Redis ran it and before its reply arrived (a
 * {@code CLIENT KILL}, an idle {@code timeout}, a proxy) fails with {@link RedisUnavailableException}
 * and is not sent again once the client has reconnected: no permit is taken, released or charged
 * twice. The client talks to Redis through a proxy that drops the reply and closes the connection.
 */
class UnansweredScriptTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private TcpProxy proxy;

	private Warden warden;

	@BeforeEach
	void connectThroughAProxy() {
		proxy = TcpProxy.start(redis.node());
		warden = clients.open(clients.redisClient(proxy.host(), proxy.port()),
				options -> options.connections(1).commandTimeout(Duration.ofSeconds(5)));
	}

	@AfterEach
	void close() {
		proxy.close();
	}

	@Test
	void aSemaphorePermitIsTakenOnce() {
		DistributedSemaphore semaphore = warden.getSemaphore("unanswered-permits");
		assertThat(semaphore.trySetPermits(5)).isTrue();
		// Its script cached, so that the reply dropped is the script's own, not a NOSCRIPT.
		assertThat(semaphore.tryAcquire()).isTrue();
		semaphore.release();

		proxy.dropNextReply();
		assertThatExceptionOfType(RedisUnavailableException.class).isThrownBy(semaphore::tryAcquire);

		assertThat(redis.node().call("GET", "unanswered-permits")).as("taken once").isEqualTo("4");
	}

	@Test
	void aLatchCountsDownOnce() {
		DistributedCountDownLatch latch = warden.getCountDownLatch("unanswered-latch");
		assertThat(latch.trySetCount(10)).isTrue();
		latch.countDown();

		proxy.dropNextReply();
		assertThatExceptionOfType(RedisUnavailableException.class).isThrownBy(latch::countDown);

		assertThat(redis.node().call("GET", "unanswered-latch")).as("counted down once").isEqualTo("8");
	}

	@Test
	void aRateLimitedCallIsChargedOnce() {
		DistributedRateLimiter limiter = warden.getRateLimiter("unanswered-rate", RateLimit.of(10, Duration.ofHours(1)));
		assertThat(limiter.tryAcquire()).isTrue();

		proxy.dropNextReply();
		assertThatExceptionOfType(RedisUnavailableException.class).isThrownBy(limiter::tryAcquire);

		assertThat(limiter.availablePermits()).as("charged once more").isEqualTo(8);
	}

}

package dev.warden.fault;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.warden.RedisUnavailableException;
import dev.warden.Warden;
import dev.warden.WardenClients;
import dev.warden.lock.DistributedCountDownLatch;
import dev.warden.lock.DistributedPermitExpirableSemaphore;
import dev.warden.lock.DistributedSemaphore;
import dev.warden.ratelimit.DistributedRateLimiter;
import dev.warden.ratelimit.RateLimit;
import dev.warden.test.redis.RedisNode;
import dev.warden.test.redis.RedisServerExtension;
import dev.warden.test.redis.TcpProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
	void startAProxy() {
		proxy = TcpProxy.start(redis.node());
	}

	/** Opens a client through the proxy, its scripts spread over {@code connections} connections. */
	private void connect(int connections) {
		warden = clients.open(clients.redisClient(proxy.host(), proxy.port()),
				options -> options.connections(connections).commandTimeout(Duration.ofSeconds(5)));
	}

	@AfterEach
	void close() {
		proxy.close();
	}

	@ParameterizedTest(name = "{0} connection(s)")
	@ValueSource(ints = { 1, 3 })
	void aSemaphorePermitIsTakenOnce(int connections) {
		connect(connections);
		DistributedSemaphore semaphore = warden.getSemaphore("unanswered-permits-" + connections);
		assertThat(semaphore.trySetPermits(5)).isTrue();
		// Its script cached, so that the reply dropped is the script's own, not a NOSCRIPT.
		assertThat(semaphore.tryAcquire()).isTrue();
		semaphore.release();

		proxy.dropNextReply();
		assertThatExceptionOfType(RedisUnavailableException.class).isThrownBy(semaphore::tryAcquire);

		assertThat(redis.node().call("GET", "unanswered-permits-" + connections)).as("taken once").isEqualTo("4");
	}

	@Test
	void aSemaphoreAcquisitionThatWaitsIsNotSentAgainEither() throws Exception {
		// A lock's acquisition that waits tries again after such a failure (a second run of it is
		// undone); a semaphore's must not: its second run would take a second permit.
		connect(1);
		DistributedSemaphore semaphore = warden.getSemaphore("unanswered-waiting-permits");
		assertThat(semaphore.trySetPermits(5)).isTrue();
		assertThat(semaphore.tryAcquire()).isTrue();
		semaphore.release();

		proxy.dropNextReply("EVALSHA");
		assertThatExceptionOfType(RedisUnavailableException.class)
			.isThrownBy(() -> semaphore.tryAcquire(1, 5, TimeUnit.SECONDS));

		assertThat(redis.node().call("GET", "unanswered-waiting-permits")).as("taken once").isEqualTo("4");
	}

	@ParameterizedTest(name = "{0} connection(s)")
	@ValueSource(ints = { 1, 3 })
	void aLatchCountsDownOnce(int connections) {
		connect(connections);
		DistributedCountDownLatch latch = warden.getCountDownLatch("unanswered-latch-" + connections);
		assertThat(latch.trySetCount(10)).isTrue();
		latch.countDown();

		proxy.dropNextReply();
		assertThatExceptionOfType(RedisUnavailableException.class).isThrownBy(latch::countDown);

		assertThat(redis.node().call("GET", "unanswered-latch-" + connections)).as("counted down once").isEqualTo("8");
	}

	@ParameterizedTest(name = "{0} connection(s)")
	@ValueSource(ints = { 1, 3 })
	void aRateLimitedCallIsChargedOnce(int connections) {
		connect(connections);
		DistributedRateLimiter limiter = warden.getRateLimiter("unanswered-rate-" + connections, RateLimit.of(10, Duration.ofHours(1)));
		assertThat(limiter.tryAcquire()).isTrue();

		proxy.dropNextReply();
		assertThatExceptionOfType(RedisUnavailableException.class).isThrownBy(limiter::tryAcquire);

		assertThat(limiter.availablePermits()).as("charged once more").isEqualTo(8);
	}

	/**
	 * Setting a permit-expirable semaphore's permits, sent again after its connection closed, would
	 * answer that they were set already, though this very call set them.
	 */
	@ParameterizedTest(name = "{0} connection(s)")
	@ValueSource(ints = { 1, 3 })
	void settingPermitsIsNotReportedAsFoundSetAlready(int connections) {
		connect(connections);
		// Its script cached, so that the reply dropped is the script's own, not a NOSCRIPT.
		assertThat(warden.getPermitExpirableSemaphore("unanswered-set-first-" + connections).trySetPermits(1)).isTrue();
		DistributedPermitExpirableSemaphore semaphore = warden
			.getPermitExpirableSemaphore("unanswered-set-" + connections);

		proxy.dropNextReply("EVALSHA");
		assertThatExceptionOfType(RedisUnavailableException.class).isThrownBy(() -> semaphore.trySetPermits(3));

		assertThat(redis.node().call("GET", "unanswered-set-" + connections)).as("set by the call").isEqualTo("3");
		assertThat(semaphore.trySetPermits(3)).as("set already").isFalse();
	}

	/**
	 * On a Redis Cluster the scripts go out on the connections of the masters, which the cluster
	 * connection opens itself: one of those closing fails the scripts written to it all the same. A
	 * one-node cluster announces the proxy as its address, so that every connection goes through it.
	 * The proxy drops the reply of a script, not of a background command of the cluster client.
	 */
	@Test
	void onAClusterAPermitIsTakenOnce() throws Exception {
		try (ProxiedCluster cluster = ProxiedCluster.oneNode(proxy, "unanswered-cluster")) {
			RedisNode node = cluster.proxied();
			Warden onCluster = cluster.open(Duration.ofSeconds(5));
			DistributedSemaphore semaphore = onCluster.getSemaphore("unanswered-cluster-permits");
			assertThat(semaphore.trySetPermits(5)).isTrue();
			assertThat(semaphore.tryAcquire()).isTrue();
			semaphore.release();

			proxy.dropNextReply("EVALSHA");
			assertThatExceptionOfType(RedisUnavailableException.class).isThrownBy(semaphore::tryAcquire);

			assertThat(node.call("GET", "unanswered-cluster-permits")).as("taken once").isEqualTo("4");
			assertThat(semaphore.tryAcquire()).as("the client reconnects").isTrue();
			assertThat(node.call("GET", "unanswered-cluster-permits")).isEqualTo("3");
		}
	}

}

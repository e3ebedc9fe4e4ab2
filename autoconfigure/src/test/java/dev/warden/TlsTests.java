package dev.warden;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import dev.warden.lock.LockOwner;
import dev.warden.test.redis.RedisNode;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslVerifyMode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Warden over TLS, with a certificate the test makes ({@code openssl}): through
 * {@code spring.data.redis.ssl.*} and an SSL bundle that trusts it, and through a {@code rediss://}
 * URI. The server listens for TLS on a port of its own; a client there that did not speak TLS
 * would not get past the handshake.
 */
class TlsTests {

	private static Path certificates;

	private static RedisNode node;

	private static int tlsPort;

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	@BeforeAll
	static void startTlsRedis() throws Exception {
		certificates = Files.createDirectories(Path.of("target", "tls-" + ProcessHandle.current().pid())).toAbsolutePath();
		Process openssl = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
				"-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout",
				certificates.resolve("key.pem").toString(), "-out", certificates.resolve("cert.pem").toString())
			.redirectErrorStream(true)
			.redirectOutput(certificates.resolve("openssl.log").toFile())
			.start();
		assertThat(openssl.waitFor(60, TimeUnit.SECONDS) && openssl.exitValue() == 0).as("openssl made a certificate")
			.isTrue();
		tlsPort = freePort();
		node = RedisNode.start(RedisNode.config()
			.name("tls")
			.option("tls-port", Integer.toString(tlsPort))
			.option("tls-cert-file", certificates.resolve("cert.pem").toString())
			.option("tls-key-file", certificates.resolve("key.pem").toString())
			.option("tls-ca-cert-file", certificates.resolve("cert.pem").toString())
			.option("tls-auth-clients", "no"));
	}

	@AfterAll
	static void stop() {
		if (node != null) {
			node.close();
		}
	}

	@Test
	void theApplicationsSslBundleIsHonoured() {
		WardenApplications.runner()
			.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + node.host(), "spring.data.redis.port=" + tlsPort,
					"spring.data.redis.ssl.enabled=true", "spring.data.redis.ssl.bundle=redis",
					"spring.ssl.bundle.pem.redis.truststore.certificate=file:" + certificates.resolve("cert.pem"))
			.run(context -> {
				assertThat(context).hasNotFailed();
				Warden warden = context.getBean(Warden.class);
				LockOwner owner = warden.newOwner();
				assertThat(warden.getLock("over-tls").tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();
				assertThat(node.call("EXISTS", "over-tls")).isEqualTo(1L);
				warden.getLock("over-tls").unlock(owner);
			});
	}

	@Test
	void aTlsUriWorksForThePlainJavaApi() throws Exception {
		RedisClient client = clients.redisClient(RedisURI.builder()
			.withHost(node.host())
			.withPort(tlsPort)
			.withSsl(true)
			.withVerifyPeer(SslVerifyMode.NONE));
		Warden warden = clients.open(client);
		LockOwner owner = warden.newOwner();

		assertThat(warden.getLock("tls-uri").tryLock(owner, 0, TimeUnit.SECONDS)).isTrue();
		assertThat(node.call("EXISTS", "tls-uri")).isEqualTo(1L);
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

}

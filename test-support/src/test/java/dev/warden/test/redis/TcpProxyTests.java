package dev.warden.test.redis;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class TcpProxyTests {

	private static RedisNode node;

	@BeforeAll
	static void startRedis() {
		node = RedisNode.start(RedisNode.config().name("proxied"));
	}

	@AfterAll
	static void stopRedis() {
		node.close();
	}

	@Test
	void passesCommandsAndRepliesThrough() throws IOException {
		try (TcpProxy proxy = TcpProxy.start(node); Socket socket = connect(proxy)) {
			assertThat(roundTrip(socket, "PING")).isEqualTo("+PONG");
			assertThat(proxy.openConnections()).isEqualTo(1);
		}
	}

	@Test
	void aLostReplyResetsTheConnectionAfterRedisExecutedTheRequest() throws IOException {
		node.call("DEL", "lost");
		try (TcpProxy proxy = TcpProxy.start(node); Socket socket = connect(proxy)) {
			proxy.loseNextReply();
			send(socket, "SET", "lost", "executed");

			assertThatExceptionOfType(IOException.class).isThrownBy(() -> {
				if (socket.getInputStream().read() < 0) {
					throw new IOException("closed");
				}
			});
			assertThat(node.call("GET", "lost")).isEqualTo("executed");
		}
	}

	@Test
	void aBlackholeHoldsBytesUntilItHeals() throws IOException {
		try (TcpProxy proxy = TcpProxy.start(node); Socket socket = connect(proxy)) {
			assertThat(roundTrip(socket, "PING")).isEqualTo("+PONG");
			proxy.blackhole();
			send(socket, "PING");
			socket.setSoTimeout(300);
			assertThatExceptionOfType(SocketTimeoutException.class).isThrownBy(() -> readLine(socket));

			proxy.heal();
			socket.setSoTimeout(5_000);
			assertThat(readLine(socket)).isEqualTo("+PONG");
		}
	}

	@Test
	void resetAllClosesEveryConnection() throws IOException {
		try (TcpProxy proxy = TcpProxy.start(node); Socket socket = connect(proxy)) {
			assertThat(roundTrip(socket, "PING")).isEqualTo("+PONG");
			proxy.resetAll();
			socket.setSoTimeout(5_000);
			assertThatExceptionOfType(IOException.class).isThrownBy(() -> {
				if (socket.getInputStream().read() < 0) {
					throw new IOException("closed");
				}
			});
		}
	}

	private static Socket connect(TcpProxy proxy) throws IOException {
		Socket socket = new Socket(proxy.host(), proxy.port());
		socket.setSoTimeout(5_000);
		return socket;
	}

	private static String roundTrip(Socket socket, String... command) throws IOException {
		send(socket, command);
		return readLine(socket);
	}

	private static void send(Socket socket, String... command) throws IOException {
		StringBuilder resp = new StringBuilder("*" + command.length + "\r\n");
		for (String part : command) {
			resp.append('$').append(part.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(part).append("\r\n");
		}
		socket.getOutputStream().write(resp.toString().getBytes(StandardCharsets.UTF_8));
		socket.getOutputStream().flush();
	}

	private static String readLine(Socket socket) throws IOException {
		InputStream in = socket.getInputStream();
		StringBuilder line = new StringBuilder();
		for (int i = 0; i < 1_000; i++) {
			int b = in.read();
			if (b < 0) {
				throw new IOException("closed after " + line);
			}
			if (b == '\n') {
				return line.toString().strip();
			}
			line.append((char) b);
		}
		throw new IOException("no line end in " + line);
	}

}

package dev.warden.test.redis;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The few RESP commands the harness itself needs (readiness checks, shutdown), so the harness
 * depends on no Redis client library.
 */
final class Resp {

	private Resp() {
	}

	/**
	 * Sends one command and returns its reply: a {@code String} for simple and bulk strings, a
	 * {@code Long} for integers, a {@code List} for arrays, {@code null} for nil.
	 */
	static Object call(String host, int port, int timeoutMillis, String... command) throws IOException {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), timeoutMillis);
			socket.setSoTimeout(timeoutMillis);
			OutputStream out = socket.getOutputStream();
			out.write(encode(command));
			out.flush();
			return read(new BufferedInputStream(socket.getInputStream()));
		}
	}

	private static byte[] encode(String... command) {
		StringBuilder sb = new StringBuilder().append('*').append(command.length).append("\r\n");
		for (String part : command) {
			byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
			sb.append('$').append(bytes.length).append("\r\n").append(part).append("\r\n");
		}
		return sb.toString().getBytes(StandardCharsets.UTF_8);
	}

	private static Object read(InputStream in) throws IOException {
		int type = in.read();
		String line = readLine(in);
		switch (type) {
			case '+':
				return line;
			case '-':
				throw new IOException("Redis error: " + line);
			case ':':
				return Long.parseLong(line);
			case '$': {
				int length = Integer.parseInt(line);
				if (length < 0) {
					return null;
				}
				byte[] data = in.readNBytes(length + 2);
				return new String(data, 0, length, StandardCharsets.UTF_8);
			}
			case '*': {
				int count = Integer.parseInt(line);
				if (count < 0) {
					return null;
				}
				List<Object> items = new ArrayList<>(count);
				for (int i = 0; i < count; i++) {
					items.add(read(in));
				}
				return items;
			}
			case -1:
				throw new IOException("Connection closed");
			default:
				throw new IOException("Unexpected RESP type '" + (char) type + "'");
		}
	}

	private static String readLine(InputStream in) throws IOException {
		ByteArrayOutputStream buffer = new ByteArrayOutputStream();
		int previous = -1;
		while (true) {
			int current = in.read();
			if (current == -1) {
				throw new IOException("Connection closed");
			}
			if (previous == '\r' && current == '\n') {
				byte[] bytes = buffer.toByteArray();
				return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
			}
			buffer.write(current);
			previous = current;
		}
	}

}

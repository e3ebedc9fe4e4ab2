package dev.warden.fault;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.warden.Warden;
import dev.warden.lock.DistributedReentrantLock;
import dev.warden.lock.LockListener;
import dev.warden.lock.LockOwner;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import org.jspecify.annotations.Nullable;

/**
 * A service in a process of its own that takes a lock under the watchdog and reports on its
 * standard output: {@code HELD <token>}, {@code LOST} when it is told the lease was lost, and the
 * outcome of each command read on its standard input: {@code UNLOCK}, {@code WRITE <key> <value>}
 * (a write to a store that refuses tokens older than the newest it has seen), {@code EXIT}.
 * <p>
 * Arguments: Redis host, port, lock name, watchdog timeout in milliseconds.
 */
public final class ForkedHolder {

	private ForkedHolder() {
	}

	public static void main(String[] args) throws Exception {
		RedisClient client = RedisClient.create(RedisURI.create(args[0], Integer.parseInt(args[1])));
		Warden warden = Warden.builder(client)
			.watchdogTimeout(Duration.ofMillis(Long.parseLong(args[3])))
			.commandTimeout(Duration.ofSeconds(2))
			.lockListener(new LockListener() {
				@Override
				public void onLeaseLost(String lockName, LockOwner owner, @Nullable Throwable cause) {
					System.out.println("LOST " + lockName);
				}
			})
			.build();
		DistributedReentrantLock lock = warden.getLock(args[2]);
		LockOwner owner = warden.newOwner();
		long token = lock.tryLockWithToken(owner, 10, TimeUnit.SECONDS).orElseThrow();
		System.out.println("HELD " + token);
		BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		String line;
		while ((line = commands.readLine()) != null) {
			String[] command = line.split(" ");
			switch (command[0]) {
				case "UNLOCK" -> {
					try {
						lock.unlock(owner);
						System.out.println("UNLOCK OK");
					}
					catch (RuntimeException ex) {
						System.out.println("UNLOCK " + ex.getClass().getSimpleName());
					}
				}
				case "WRITE" -> System.out.println("WRITE "
						+ (FencedStore.write(client, command[1], token, command[2]) ? "OK" : "REFUSED"));
				case "EXIT" -> {
					warden.close();
					client.shutdown();
					return;
				}
				default -> System.out.println("UNKNOWN " + line);
			}
		}
	}

}

package dev.warden.json;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.warden.Eventually;
import dev.warden.WardenClients;
import dev.warden.task.ConsumerOptions;
import dev.warden.task.DeadLetter;
import dev.warden.task.DelayedQueue;
import dev.warden.task.UnreadablePayloadException;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.core.ResolvableType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Payloads through Jackson 2 as through Jackson 3: a payload written by one reads back equal in the
 * other (an application moving from Spring Boot 3 to 4 keeps its pending tasks), and a queue on
 * Jackson 2 schedules, delivers and keeps readable dead letters on a real Redis.
 */
class JsonBindingTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final WardenClients clients = new WardenClients();

	private final JsonBinding jackson3 = Jackson3Binding.withModules();

	private final JsonBinding jackson2 = Jackson2Binding.withModules();

	public enum Status {

		OPEN, PAID

	}

	public record Line(String sku, int quantity) {
	}

	public record Order(String id, Instant due, Duration grace, BigDecimal total, Status status, List<Line> lines,
			Map<String, String> tags) {
	}

	private static Order order(String id) {
		return new Order(id, Instant.parse("2026-07-07T07:07:07.250Z"), Duration.ofMinutes(30), new BigDecimal("12.50"),
				Status.PAID, List.of(new Line("sku-1", 2)), Map.of("channel", "web"));
	}

	@Test
	void aPayloadWrittenByOneMajorVersionReadsBackEqualInTheOther() {
		Order order = order("o-1");
		String byJackson3 = jackson3.write(order, Order.class);
		String byJackson2 = jackson2.write(order, Order.class);

		assertThat(byJackson2).isEqualTo(byJackson3);
		assertThat(jackson2.read(byJackson3, Order.class)).isEqualTo(order);
		assertThat(jackson3.read(byJackson2, Order.class)).isEqualTo(order);
	}

	@Test
	void argumentArraysAndGenericTypesReadBackInBoth() {
		java.lang.reflect.Type lines = ResolvableType.forClassWithGenerics(List.class, Line.class).getType();
		for (JsonBinding binding : List.of(jackson3, jackson2)) {
			String json = binding.writeArray(new Object[] { "o-1", List.of(new Line("a", 1)), 3 });
			assertThat(binding.readArray(json, new java.lang.reflect.Type[] { String.class, lines, int.class }))
				.as(binding.toString())
				.containsExactly("o-1", List.of(new Line("a", 1)), 3);
			assertThatExceptionOfType(UnreadablePayloadException.class).as(binding.toString())
				.isThrownBy(() -> binding.readArray(json, new java.lang.reflect.Type[] { String.class, lines }))
				.withMessageContaining("Expected a JSON array of 2 values");
			assertThatExceptionOfType(UnreadablePayloadException.class).as(binding.toString())
				.isThrownBy(() -> binding.read("{\"sku\": {\"a\": 1}}", Line.class))
				.withMessageContaining(Line.class.getName());
		}
	}

	@Test
	void aQueueOnJackson2DeliversItsPayloadsAndKeepsItsDeadLettersReadable() throws Exception {
		DelayedQueue<Order> queue = clients.open(redis.node(), options -> options.json(jackson2))
			.getDelayedQueue("jackson-2", Order.class);
		queue.schedule("good", order("good"), Duration.ZERO);
		queue.schedule("bad", order("bad"), Duration.ZERO);
		BlockingQueue<Order> delivered = new ArrayBlockingQueue<>(4);

		queue.consume(delivery -> {
			if (delivery.payload().id().equals("bad")) {
				throw new IllegalStateException("refused " + delivery.payload().id());
			}
			delivered.add(delivery.payload());
		}, new ConsumerOptions(1, Duration.ofMillis(50), Duration.ofSeconds(1), Duration.ofMinutes(1)));

		assertThat(delivered.poll(30, TimeUnit.SECONDS)).isEqualTo(order("good"));
		Eventually.await("the dead letter", Duration.ofSeconds(30), () -> queue.deadLetterCount() == 1);
		DeadLetter letter = queue.deadLetters().get(0);
		assertThat(letter.id()).isEqualTo("bad");
		assertThat(letter.error()).contains("refused bad");
		assertThat(letter.attempts()).isEqualTo(1);
		assertThat(jackson3.read(letter.payload(), Order.class)).isEqualTo(order("bad"));
	}

}

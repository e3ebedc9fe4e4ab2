package dev.warden.samples.invoices;

import java.math.BigDecimal;
import java.time.Instant;

import dev.warden.test.TestRedis;
import dev.warden.test.WardenTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The application's own test, as its team writes it with {@code warden-test}: no Redis configured,
 * {@link WardenTest} gives it one.
 */
@SpringBootTest(properties = "invoices.reminder-delay=1h")
@WardenTest
class InvoicesTests {

	@Autowired
	InvoiceDesk desk;

	@Autowired
	TestRedis redis;

	@BeforeEach
	void clean() {
		redis.flushAll();
	}

	@Test
	void issuingAnInvoiceSchedulesItsReminderAndItsEscalation() {
		desk.issue(new Invoice("INV-9", new Money(new BigDecimal("3.20"), "EUR"), Instant.parse("2026-11-26T10:00:00Z")));

		assertThat(redis.call("HGET", "warden:task:{invoice-reminders}:tasks", "INV-9"))
			.isEqualTo("{\"number\":\"INV-9\",\"amount\":\"3.20 EUR\",\"issued_at\":\"2026-11-26T10:00:00Z\"}");
		assertThat(redis.call("HEXISTS", "warden:task:{invoice-escalations}:tasks", "INV-9")).isEqualTo(1L);
	}

}

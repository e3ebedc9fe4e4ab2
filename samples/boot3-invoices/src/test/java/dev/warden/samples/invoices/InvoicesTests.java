package dev.warden.samples.invoices;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;

import dev.warden.Warden;
import dev.warden.test.LockRecorder;
import dev.warden.test.RanTask;
import dev.warden.test.TaskClock;
import dev.warden.test.TaskModes;
import dev.warden.test.TestRedis;
import dev.warden.test.WardenTest;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static dev.warden.test.WardenAssertions.assertThatLocks;
import static dev.warden.test.WardenAssertions.assertThatQueue;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The application's own test, as its team writes it with {@code warden-test}: no Redis configured,
 * {@link WardenTest} gives it one, and resets Warden's keys and the test clock before each test.
 */
@SpringBootTest(properties = "invoices.reminder-delay=1h")
@WardenTest
class InvoicesTests {

	@Autowired
	InvoiceDesk desk;

	@Autowired
	TestRedis redis;

	@Autowired
	Warden warden;

	@Autowired
	TaskClock clock;

	@Autowired
	TaskModes tasks;

	@Autowired
	LockRecorder locks;

	@Test
	void issuingAnInvoiceSchedulesItsReminderAndItsEscalation() {
		desk.issue(new Invoice("INV-9", new Money(new BigDecimal("3.20"), "EUR"), Instant.parse("2026-11-26T10:00:00Z")));

		assertThat(redis.call("HGET", "warden:task:{invoice-reminders}:tasks", "INV-9"))
			.isEqualTo("{\"number\":\"INV-9\",\"amount\":\"3.20 EUR\",\"issued_at\":\"2026-11-26T10:00:00Z\"}");
		assertThat(redis.call("HEXISTS", "warden:task:{invoice-escalations}:tasks", "INV-9")).isEqualTo(1L);
	}

	@Test
	void theTestClockRunsTheReminderAfterAnHourAndTheEscalationAfterAWeek() {
		Invoice invoice = new Invoice("INV-10", new Money(new BigDecimal("12.50"), "EUR"),
				Instant.parse("2026-11-26T10:00:00Z"));
		desk.issue(invoice);
		assertThatQueue(warden, "invoice-reminders").hasTask("INV-10")
			.dueIn(Duration.ofHours(1))
			.argument(0, Invoice.class)
			.isEqualTo(invoice);
		assertThatLocks(locks).held("invoice:INV-10").by(InvoiceDesk.class, "issue");

		assertThat(clock.advance(Duration.ofHours(1))).extracting(RanTask::queue).containsExactly("invoice-reminders");
		assertThat(clock.advance(Duration.ofDays(7))).singleElement().satisfies(task -> {
			assertThat(task.queue()).isEqualTo("invoice-escalations");
			assertThat(task.argument(0, Invoice.class)).isEqualTo(invoice);
		});
		assertThatQueue(warden, "invoice-escalations").hasNoPendingTasks().hasNoDeadLetters();
	}

	@Test
	void inlineRunsBothTasksAtOnceThroughTheApplicationsMapper() {
		tasks.inline();

		desk.issue(new Invoice("INV-11", new Money(new BigDecimal("1.00"), "EUR"), Instant.parse("2026-11-26T10:00:00Z")));

		assertThat(tasks.calls()).extracting(TaskModes.Call::queue).containsExactly("invoice-reminders",
				"invoice-escalations");
		assertThat(tasks.calls().get(0).payload()).contains("\"issued_at\":\"2026-11-26T10:00:00Z\"");
		assertThatQueue(warden, "invoice-reminders").hasNoPendingTasks();
	}

}

package dev.warden.samples.invoices;

import dev.warden.task.annotation.DelayedTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;

/** Durable reminders about an invoice: each runs once, on one instance, when it is due. */
@Service
public class Reminders {

	private static final Logger logger = LoggerFactory.getLogger(Reminders.class);

	@DelayedTask(queue = "invoice-reminders", delay = "${invoices.reminder-delay}", id = "#invoice.number")
	public void remind(Invoice invoice) {
		logger.info("Reminder sent for invoice {}: {} issued at {}", invoice.number(), invoice.amount(),
				invoice.issuedAt());
	}

	@DelayedTask(queue = "invoice-escalations", delay = "${invoices.escalation-delay}", id = "#invoice.number")
	public void escalate(Invoice invoice) {
		logger.info("Invoice {} escalated: {} still unpaid", invoice.number(), invoice.amount());
	}

}

package dev.warden.samples.invoices;

import dev.warden.lock.annotation.DistributedLock;
import org.springframework.stereotype.Service;

/** Issues invoices, one at a time per invoice number across every instance. */
@Service
public class InvoiceDesk {

	private final Reminders reminders;

	public InvoiceDesk(Reminders reminders) {
		this.reminders = reminders;
	}

	@DistributedLock(name = "invoice", key = "#invoice.number")
	public void issue(Invoice invoice) {
		reminders.remind(invoice);
		reminders.escalate(invoice);
	}

}

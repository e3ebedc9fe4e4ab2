package dev.warden.samples.orders;

import java.util.List;

import dev.warden.task.annotation.RecurringTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * Logs the products that are running out, every night at 02:00 UTC ({@code orders.low-stock-report-cron}),
 * once across all instances of the service (not once per instance, as {@code @Scheduled} would).
 */
@Component
public class LowStockReport {

	private static final Logger logger = LoggerFactory.getLogger(LowStockReport.class);

	private final Inventory inventory;

	private final int threshold;

	public LowStockReport(Inventory inventory, @Value("${orders.low-stock-threshold:10}") int threshold) {
		this.inventory = inventory;
		this.threshold = threshold;
	}

	@RecurringTask(name = "low-stock-report", cron = "${orders.low-stock-report-cron:0 0 2 * * *}", zone = "UTC")
	public void report() {
		List<String> low = inventory.products()
			.stream()
			.filter(product -> product.stock() < threshold)
			.map(product -> product.sku() + " (" + product.stock() + ")")
			.toList();
		if (!low.isEmpty()) {
			logger.info("Running out: {}", String.join(", ", low));
		}
	}

}

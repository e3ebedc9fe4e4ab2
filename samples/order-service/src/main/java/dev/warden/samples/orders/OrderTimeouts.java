package dev.warden.samples.orders;

import dev.warden.lock.annotation.DistributedLock;
import dev.warden.task.annotation.DelayedTask;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * Closes orders that are still unpaid when the payment timeout runs out, and returns their stock.
 * <p>
 * Calling {@link #closeIfUnpaid} schedules it; it runs when due on one instance, through all three
 * annotations: the task, then the stock lock, then the transaction. It is idempotent, since a task
 * is delivered at least once: the conditional update closes the order only if it is still
 * {@code CREATED}, and only that update returns the stock.
 */
@Component
public class OrderTimeouts {

	/** The queue of payment timeouts; a task's id is {@code order-<id>}. */
	public static final String QUEUE = "order-timeout";

	private final Inventory inventory;

	public OrderTimeouts(Inventory inventory) {
		this.inventory = inventory;
	}

	/** The id of an order's timeout task, to cancel it when the order is paid. */
	public static String taskId(long orderId) {
		return "order-" + orderId;
	}

	@DelayedTask(queue = QUEUE, delay = "${orders.payment-timeout:30m}", id = "'order-' + #orderId")
	@DistributedLock(name = "stock", key = "#sku", waitTime = 10_000)
	@Transactional
	public void closeIfUnpaid(long orderId, String sku) {
		inventory.findOrder(orderId).ifPresent(order -> {
			if (inventory.closeIfCreated(orderId)) {
				inventory.addStock(sku, order.quantity());
			}
		});
	}

}

package dev.warden.samples.orders;

import dev.warden.Warden;
import dev.warden.lock.annotation.DistributedLock;
import dev.warden.task.DelayedQueue;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Takes orders without overselling, however many instances run, and closes the ones left unpaid.
 */
@Service
public class OrderService {

	private final Inventory inventory;

	private final OrderTimeouts timeouts;

	private final DelayedQueue<Object> timeoutQueue;

	public OrderService(Inventory inventory, OrderTimeouts timeouts, Warden warden) {
		this.inventory = inventory;
		this.timeouts = timeouts;
		this.timeoutQueue = warden.getDelayedQueue(OrderTimeouts.QUEUE);
	}

	/**
	 * Creates an order and takes its units from stock. The stock is read, checked and written back
	 * as plain statements: the lock on the SKU is what keeps two instances from selling the same
	 * unit, and it is released only after the transaction has committed.
	 */
	@DistributedLock(name = "stock", key = "#sku")
	@Transactional
	public Order purchase(String sku, int quantity) {
		if (quantity <= 0) {
			throw new InvalidOrderException("quantity must be positive: " + quantity);
		}
		Product product = inventory.findProduct(sku).orElseThrow(() -> new UnknownProductException(sku));
		if (product.stock() < quantity) {
			throw new OutOfStockException(sku, product.stock(), quantity);
		}
		inventory.setStock(sku, product.stock() - quantity);
		Order order = inventory.createOrder(sku, quantity);
		// Schedules the payment timeout; the order is closed if it is still unpaid by then.
		timeouts.closeIfUnpaid(order.id(), sku);
		return order;
	}

	/**
	 * Pays an order and cancels its payment timeout. Both follow the transaction: the cancel is made
	 * when it commits, and never when it rolls back, so a failed payment leaves the timeout pending.
	 * @throws OrderNotPayableException when the order does not exist, is paid, or was closed
	 */
	@Transactional
	public Order pay(long orderId) {
		if (!inventory.payIfCreated(orderId)) {
			throw new OrderNotPayableException(orderId);
		}
		timeoutQueue.cancel(OrderTimeouts.taskId(orderId));
		return inventory.findOrder(orderId).orElseThrow();
	}

	/** Thrown when an order asks for something that cannot be ordered. */
	public static class InvalidOrderException extends RuntimeException {

		private static final long serialVersionUID = 1L;

		InvalidOrderException(String message) {
			super(message);
		}

	}

	/** Thrown when an order cannot be paid any more. */
	public static class OrderNotPayableException extends RuntimeException {

		private static final long serialVersionUID = 1L;

		OrderNotPayableException(long orderId) {
			super("Order " + orderId + " does not exist, is paid already, or was closed unpaid");
		}

	}

	/** Thrown when the product does not exist. */
	public static class UnknownProductException extends RuntimeException {

		private static final long serialVersionUID = 1L;

		UnknownProductException(String sku) {
			super("No product " + sku);
		}

	}

	/** Thrown when fewer units are left than ordered. */
	public static class OutOfStockException extends RuntimeException {

		private static final long serialVersionUID = 1L;

		OutOfStockException(String sku, int stock, int quantity) {
			super("Only " + stock + " of " + sku + " left, " + quantity + " ordered");
		}

	}

}

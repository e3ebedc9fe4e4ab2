package dev.warden.samples.orders;

import java.util.concurrent.TimeUnit;

import dev.warden.lock.annotation.DistributedLock;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Takes orders without overselling, however many instances run. */
@Service
public class OrderService {

	private final Inventory inventory;

	public OrderService(Inventory inventory) {
		this.inventory = inventory;
	}

	/**
	 * Creates an order and takes its units from stock. The stock is read, checked and written back
	 * as plain statements: the lock on the SKU is what keeps two instances from selling the same
	 * unit, and it is released only after the transaction has committed.
	 */
	@DistributedLock(name = "stock", key = "#sku", waitTime = 10, timeUnit = TimeUnit.SECONDS)
	@Transactional
	public Order purchase(String sku, int quantity) {
		if (quantity <= 0) {
			throw new IllegalArgumentException("quantity must be positive: " + quantity);
		}
		Product product = inventory.findProduct(sku).orElseThrow(() -> new UnknownProductException(sku));
		if (product.stock() < quantity) {
			throw new OutOfStockException(sku, product.stock(), quantity);
		}
		inventory.setStock(sku, product.stock() - quantity);
		return inventory.createOrder(sku, quantity);
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

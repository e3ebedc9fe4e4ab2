package dev.warden.samples.orders;

import java.net.URI;
import java.util.List;

import dev.warden.samples.orders.OrderService.InvalidOrderException;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * The HTTP API: {@code POST /orders}, {@code POST /orders/{id}/pay}, {@code GET /orders/{id}},
 * {@code GET /products}. Errors are problem details ({@link OrderProblems}).
 */
@RestController
public class OrderController {

	private final OrderService orders;

	private final Inventory inventory;

	public OrderController(OrderService orders, Inventory inventory) {
		this.orders = orders;
		this.inventory = inventory;
	}

	/** The body of {@code POST /orders}. */
	public record PurchaseRequest(String sku, int quantity) {
	}

	@PostMapping("/orders")
	public ResponseEntity<Order> purchase(@RequestBody PurchaseRequest request) {
		if (request.sku() == null || request.sku().isBlank()) {
			throw new InvalidOrderException("sku is required");
		}
		Order order = orders.purchase(request.sku(), request.quantity());
		return ResponseEntity.created(URI.create("/orders/" + order.id())).body(order);
	}

	@PostMapping("/orders/{id}/pay")
	public Order pay(@PathVariable long id) {
		return orders.pay(id);
	}

	@GetMapping("/orders/{id}")
	public ResponseEntity<Order> order(@PathVariable long id) {
		return ResponseEntity.of(inventory.findOrder(id));
	}

	@GetMapping("/products")
	public List<Product> products() {
		return inventory.products();
	}

	@GetMapping("/products/{sku}")
	public ResponseEntity<Product> product(@PathVariable String sku) {
		return ResponseEntity.of(inventory.findProduct(sku));
	}

}

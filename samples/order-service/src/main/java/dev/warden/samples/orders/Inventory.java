package dev.warden.samples.orders;

import java.util.List;
import java.util.Optional;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.stereotype.Repository;

/** Products and orders in the database. */
@Repository
public class Inventory {

	private final JdbcClient jdbc;

	public Inventory(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	public Optional<Product> findProduct(String sku) {
		return jdbc.sql("select sku, name, stock from products where sku = ?").param(sku).query(Product.class).optional();
	}

	public List<Product> products() {
		return jdbc.sql("select sku, name, stock from products order by sku").query(Product.class).list();
	}

	public void setStock(String sku, int stock) {
		jdbc.sql("update products set stock = ? where sku = ?").params(stock, sku).update();
	}

	/** Adds returned units to the stock. */
	public void addStock(String sku, int quantity) {
		jdbc.sql("update products set stock = stock + ? where sku = ?").params(quantity, sku).update();
	}

	/** Marks a created order paid; false when it is not {@code CREATED} any more. */
	public boolean payIfCreated(long id) {
		return jdbc.sql("update orders set status = 'PAID' where id = ? and status = 'CREATED'").param(id).update() == 1;
	}

	/** Marks a created order closed; false when it is not {@code CREATED} any more. */
	public boolean closeIfCreated(long id) {
		return jdbc.sql("update orders set status = 'CLOSED' where id = ? and status = 'CREATED'").param(id).update() == 1;
	}

	/** How many orders of the product have this status. */
	public long countOrders(String sku, String status) {
		return jdbc.sql("select count(*) from orders where sku = ? and status = ?").params(sku, status)
			.query(Long.class)
			.single();
	}

	public Order createOrder(String sku, int quantity) {
		GeneratedKeyHolder key = new GeneratedKeyHolder();
		jdbc.sql("insert into orders (sku, quantity, status) values (?, ?, 'CREATED')")
			.params(sku, quantity)
			.update(key, "id");
		return new Order(key.getKeyAs(Long.class), sku, quantity, "CREATED");
	}

	public Optional<Order> findOrder(long id) {
		return jdbc.sql("select id, sku, quantity, status from orders where id = ?").param(id).query(Order.class).optional();
	}

	public long countOrders(String sku) {
		return jdbc.sql("select count(*) from orders where sku = ?").param(sku).query(Long.class).single();
	}

}

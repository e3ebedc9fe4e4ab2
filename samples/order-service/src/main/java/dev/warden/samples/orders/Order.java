package dev.warden.samples.orders;

/**
 * An order of some units of one product.
 *
 * @param id the order's id
 * @param sku the product
 * @param quantity units ordered
 * @param status {@code CREATED}, then {@code PAID}, or {@code CLOSED} when unpaid at the payment timeout
 */
public record Order(long id, String sku, int quantity, String status) {
}

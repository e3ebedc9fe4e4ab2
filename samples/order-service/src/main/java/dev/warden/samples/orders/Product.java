package dev.warden.samples.orders;

/**
 * A product and how many are left.
 *
 * @param sku the product's id
 * @param name its display name
 * @param stock units left
 */
public record Product(String sku, String name, int stock) {
}

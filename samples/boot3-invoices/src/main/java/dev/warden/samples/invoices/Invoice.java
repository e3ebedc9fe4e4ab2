package dev.warden.samples.invoices;

import java.time.Instant;

/**
 * An invoice, as reminders carry it.
 *
 * @param number the invoice number
 * @param amount what is due
 * @param issuedAt when it was issued
 */
public record Invoice(String number, Money amount, Instant issuedAt) {
}

package dev.siglo.examples.payments;

/**
 * An order to charge, as it arrives in a message payload (JSON).
 *
 * @param orderId the order id, also the message's idempotency key
 * @param customerId the customer
 * @param amountCents the amount in cents
 * @param card the card token
 */
public record Order(String orderId, String customerId, long amountCents, String card) {}

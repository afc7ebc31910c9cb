package dev.siglo.examples.payments;

/**
 * A successful charge returned by the payment gateway.
 *
 * @param chargeId the gateway's charge id
 * @param orderId the order charged
 * @param amountCents the amount charged
 */
public record Charge(String chargeId, String orderId, long amountCents) {}

package dev.siglo.kafka.internal;

import dev.siglo.consumer.engine.Disposition;

/**
 * A worker's answer for one record, handed to the poll thread: its disposition, or the fatal error
 * that stopped the worker; neither when the record was not started (the consumer is stopping or its
 * partition is being revoked).
 */
record Completion(Work work, Disposition disposition, Throwable fatal) {}

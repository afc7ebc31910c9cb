package dev.siglo.kafka.internal;

import dev.siglo.consumer.engine.Disposition;

/** A worker's answer for one record, handed to the poll thread. */
record Completion(Work work, Disposition disposition, Throwable fatal) {}

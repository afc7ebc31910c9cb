package dev.siglo.consumer.engine;

import java.util.function.BooleanSupplier;

/** A user's reason to pause intake (an open circuit breaker, a failing health check). */
record PauseCondition(String reason, BooleanSupplier holds) {}

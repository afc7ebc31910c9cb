package dev.siglo.kafka.internal;

import dev.siglo.consumer.engine.IntakeGate;
import java.time.Duration;
import java.util.Optional;

/** An intake gate a test opens and closes by hand. */
final class SwitchGate implements IntakeGate {
  private volatile String reason;

  void close(String why) {
    reason = why;
  }

  void open() {
    reason = null;
  }

  @Override
  public Optional<String> pausedReason() {
    return Optional.ofNullable(reason);
  }

  @Override
  public boolean awaitOpen(Duration timeout) {
    return reason == null;
  }
}

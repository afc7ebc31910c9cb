package dev.siglo.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A {@link Clock} that moves only when told to, so lease and retention expiry are tested without
 * sleeping. Thread-safe.
 */
public final class MutableClock extends Clock {
  private final AtomicReference<Instant> now;
  private final ZoneId zone;

  /**
   * @param start the initial instant
   */
  public MutableClock(Instant start) {
    this(new AtomicReference<>(Objects.requireNonNull(start, "start")), ZoneOffset.UTC);
  }

  private MutableClock(AtomicReference<Instant> now, ZoneId zone) {
    this.now = now;
    this.zone = zone;
  }

  /**
   * Moves the clock forward.
   *
   * @param duration how far; not negative
   * @return the new instant
   */
  public Instant advance(Duration duration) {
    if (duration.isNegative()) {
      throw new IllegalArgumentException("a clock does not go back: " + duration);
    }
    return now.updateAndGet(i -> i.plus(duration));
  }

  @Override
  public ZoneId getZone() {
    return zone;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return new MutableClock(now, zone);
  }

  @Override
  public Instant instant() {
    return now.get();
  }
}

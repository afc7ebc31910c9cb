package dev.siglo.consumer.support;

import java.time.Duration;
import java.util.Objects;

/** Argument checks for durations, shared by the configuration builders. */
public final class Durations {
  private Durations() {}

  /**
   * @param d a duration
   * @param name the setting's name, for the message
   * @return {@code d}
   * @throws IllegalArgumentException when {@code d} is zero or negative
   * @throws NullPointerException when {@code d} is null
   */
  public static Duration requirePositive(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, was " + d);
    }
    return d;
  }

  /**
   * @param d a duration
   * @param name the setting's name, for the message
   * @return {@code d}
   * @throws IllegalArgumentException when {@code d} is negative
   * @throws NullPointerException when {@code d} is null
   */
  public static Duration requireNonNegative(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative()) {
      throw new IllegalArgumentException(name + " must not be negative, was " + d);
    }
    return d;
  }
}

package dev.siglo.consumer;

import dev.siglo.consumer.support.Durations;
import java.time.Duration;

/**
 * How transient failures are retried: {@code maxAttempts} in process (exponential backoff with
 * jitter between them), then redelivery with its own exponential backoff (computed from the
 * delivery attempt), and after {@code maxDeliveries} deliveries the dead-letter destination.
 * Immutable; built by {@link #custom()}.
 */
public final class RetryConfig {
  /** Default in-process attempts per delivery. */
  public static final int DEFAULT_MAX_ATTEMPTS = 3;

  /** Default first in-process backoff. */
  public static final Duration DEFAULT_INITIAL_BACKOFF = Duration.ofMillis(100);

  /** Default longest in-process backoff. */
  public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(2);

  /** Default deliveries before dead-lettering. */
  public static final int DEFAULT_MAX_DELIVERIES = 5;

  /** Default number of takeovers from a dead holder before a message is a crash loop: 3. */
  public static final int DEFAULT_MAX_TAKEOVERS = 3;

  /** Default first redelivery backoff. */
  public static final Duration DEFAULT_INITIAL_REDELIVERY_BACKOFF = Duration.ofSeconds(1);

  /** Default longest redelivery backoff. */
  public static final Duration DEFAULT_MAX_REDELIVERY_BACKOFF = Duration.ofMinutes(5);

  /** Default backoff multiplier. */
  public static final double DEFAULT_MULTIPLIER = 2.0;

  /** Default jitter (randomization factor). */
  public static final double DEFAULT_JITTER = 0.5;

  private static final RetryConfig DEFAULTS = custom().build();

  private final int maxAttempts;
  private final Duration initialBackoff;
  private final Duration maxBackoff;
  private final int maxDeliveries;
  private final int maxTakeovers;
  private final Duration initialRedeliveryBackoff;
  private final Duration maxRedeliveryBackoff;
  private final double multiplier;
  private final double jitter;

  private RetryConfig(Builder b) {
    this.maxAttempts = b.maxAttempts;
    this.initialBackoff = b.initialBackoff;
    this.maxBackoff = b.maxBackoff;
    this.maxDeliveries = b.maxDeliveries;
    this.maxTakeovers = b.maxTakeovers;
    this.initialRedeliveryBackoff = b.initialRedeliveryBackoff;
    this.maxRedeliveryBackoff = b.maxRedeliveryBackoff;
    this.multiplier = b.multiplier;
    this.jitter = b.jitter;
  }

  /**
   * @return the defaults
   */
  public static RetryConfig defaults() {
    return DEFAULTS;
  }

  /**
   * @return a builder starting from the defaults
   */
  public static Builder custom() {
    return new Builder();
  }

  /**
   * @return in-process attempts per delivery (1 = no in-process retry)
   */
  public int maxAttempts() {
    return maxAttempts;
  }

  /**
   * @return first in-process backoff
   */
  public Duration initialBackoff() {
    return initialBackoff;
  }

  /**
   * @return longest in-process backoff
   */
  public Duration maxBackoff() {
    return maxBackoff;
  }

  /**
   * @return deliveries before dead-lettering
   */
  public int maxDeliveries() {
    return maxDeliveries;
  }

  /**
   * @return takeovers of a message's claim from a dead holder before it is dead-lettered as {@code
   *     CRASH_LOOP}
   */
  public int maxTakeovers() {
    return maxTakeovers;
  }

  /**
   * @return first redelivery backoff
   */
  public Duration initialRedeliveryBackoff() {
    return initialRedeliveryBackoff;
  }

  /**
   * @return longest redelivery backoff
   */
  public Duration maxRedeliveryBackoff() {
    return maxRedeliveryBackoff;
  }

  /**
   * @return the backoff multiplier
   */
  public double multiplier() {
    return multiplier;
  }

  /**
   * @return the jitter (randomization factor, 0 up to but excluding 1)
   */
  public double jitter() {
    return jitter;
  }

  @Override
  public String toString() {
    return "RetryConfig[maxAttempts="
        + maxAttempts
        + ", backoff="
        + initialBackoff
        + ".."
        + maxBackoff
        + ", maxDeliveries="
        + maxDeliveries
        + ", redeliveryBackoff="
        + initialRedeliveryBackoff
        + ".."
        + maxRedeliveryBackoff
        + ", multiplier="
        + multiplier
        + ", jitter="
        + jitter
        + "]";
  }

  /** Builds {@link RetryConfig}; every setter validates, {@code build()} checks combinations. */
  public static final class Builder {
    private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
    private Duration initialBackoff = DEFAULT_INITIAL_BACKOFF;
    private Duration maxBackoff = DEFAULT_MAX_BACKOFF;
    private int maxDeliveries = DEFAULT_MAX_DELIVERIES;
    private int maxTakeovers = DEFAULT_MAX_TAKEOVERS;
    private Duration initialRedeliveryBackoff = DEFAULT_INITIAL_REDELIVERY_BACKOFF;
    private Duration maxRedeliveryBackoff = DEFAULT_MAX_REDELIVERY_BACKOFF;
    private double multiplier = DEFAULT_MULTIPLIER;
    private double jitter = DEFAULT_JITTER;

    private Builder() {}

    /**
     * @param maxAttempts in-process attempts per delivery, at least 1
     * @return this builder
     */
    public Builder maxAttempts(int maxAttempts) {
      if (maxAttempts < 1) {
        throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
      }
      this.maxAttempts = maxAttempts;
      return this;
    }

    /**
     * @param initial first in-process backoff, positive
     * @param max longest in-process backoff, at least {@code initial}
     * @return this builder
     */
    public Builder backoff(Duration initial, Duration max) {
      this.initialBackoff = Durations.requirePositive(initial, "initialBackoff");
      this.maxBackoff = Durations.requirePositive(max, "maxBackoff");
      return this;
    }

    /**
     * @param maxDeliveries deliveries before dead-lettering, at least 1
     * @return this builder
     */
    public Builder maxDeliveries(int maxDeliveries) {
      if (maxDeliveries < 1) {
        throw new IllegalArgumentException(
            "maxDeliveries must be at least 1, was " + maxDeliveries);
      }
      this.maxDeliveries = maxDeliveries;
      return this;
    }

    /**
     * @param maxTakeovers how many times a message's claim may be taken over from a holder that
     *     died (or froze past its lease) before the message is dead-lettered as {@code CRASH_LOOP}
     *     instead of run again, at least 1
     * @return this builder
     */
    public Builder maxTakeovers(int maxTakeovers) {
      if (maxTakeovers < 1) {
        throw new IllegalArgumentException("maxTakeovers must be at least 1, was " + maxTakeovers);
      }
      this.maxTakeovers = maxTakeovers;
      return this;
    }

    /**
     * @param initial first redelivery backoff, positive
     * @param max longest redelivery backoff, at least {@code initial}
     * @return this builder
     */
    public Builder redeliveryBackoff(Duration initial, Duration max) {
      this.initialRedeliveryBackoff =
          Durations.requirePositive(initial, "initialRedeliveryBackoff");
      this.maxRedeliveryBackoff = Durations.requirePositive(max, "maxRedeliveryBackoff");
      return this;
    }

    /**
     * @param multiplier backoff multiplier, at least 1
     * @return this builder
     */
    public Builder multiplier(double multiplier) {
      if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
        throw new IllegalArgumentException("multiplier must be at least 1, was " + multiplier);
      }
      this.multiplier = multiplier;
      return this;
    }

    /**
     * @param jitter randomization factor, 0 (none) up to but excluding 1
     * @return this builder
     */
    public Builder jitter(double jitter) {
      if (!(jitter >= 0.0 && jitter < 1.0)) {
        throw new IllegalArgumentException("jitter must be at least 0 and below 1, was " + jitter);
      }
      this.jitter = jitter;
      return this;
    }

    /**
     * @return the settings
     * @throws IllegalArgumentException when a maximum backoff is below its initial backoff
     */
    public RetryConfig build() {
      if (maxBackoff.compareTo(initialBackoff) < 0) {
        throw new IllegalArgumentException(
            "maxBackoff ("
                + maxBackoff
                + ") must not be below initialBackoff ("
                + initialBackoff
                + ")");
      }
      if (maxRedeliveryBackoff.compareTo(initialRedeliveryBackoff) < 0) {
        throw new IllegalArgumentException(
            "maxRedeliveryBackoff ("
                + maxRedeliveryBackoff
                + ") must not be below initialRedeliveryBackoff ("
                + initialRedeliveryBackoff
                + ")");
      }
      return new RetryConfig(this);
    }
  }
}

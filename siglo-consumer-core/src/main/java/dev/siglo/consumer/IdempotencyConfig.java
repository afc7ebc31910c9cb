package dev.siglo.consumer;

import dev.siglo.consumer.support.Durations;
import java.time.Duration;
import java.util.Objects;

/**
 * How an idempotent unit (a message or a step) uses the store: {@code ttl} (retention of a
 * completed outcome), {@code lease} (how long an in-progress claim blocks others before it counts
 * as abandoned), and wait-and-settle ({@code settleTimeout}, {@code pollInterval}) for duplicates
 * that arrive while the first execution is in flight. Immutable; built by {@link #custom()}, every
 * setter validating its argument and {@link Builder#build()} checking combinations.
 */
public final class IdempotencyConfig {
  /** Default retention of completed outcomes: 24 hours. */
  public static final Duration DEFAULT_TTL = Duration.ofHours(24);

  /** Default lease of a claim: 2 minutes. */
  public static final Duration DEFAULT_LEASE = Duration.ofMinutes(2);

  /** Default wait for an in-flight duplicate to settle: 10 seconds. */
  public static final Duration DEFAULT_SETTLE_TIMEOUT = Duration.ofSeconds(10);

  /** Default store poll interval while settling: 50 milliseconds. */
  public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(50);

  private static final IdempotencyConfig DEFAULTS = custom().build();

  private final Duration ttl;
  private final Duration lease;
  private final Duration settleTimeout;
  private final Duration pollInterval;

  private IdempotencyConfig(Builder b) {
    this.ttl = b.ttl;
    this.lease = b.lease;
    this.settleTimeout = b.settleTimeout;
    this.pollInterval = b.pollInterval;
  }

  /**
   * @return the defaults (24 h retention, 2 min lease, 10 s settle, 50 ms poll)
   */
  public static IdempotencyConfig defaults() {
    return DEFAULTS;
  }

  /**
   * @return a builder starting from the defaults
   */
  public static Builder custom() {
    return new Builder();
  }

  /**
   * @return a builder starting from these options
   */
  public Builder toBuilder() {
    return new Builder()
        .ttl(ttl)
        .lease(lease)
        .settleTimeout(settleTimeout)
        .pollInterval(pollInterval);
  }

  /**
   * @return how long a completed outcome is kept
   */
  public Duration ttl() {
    return ttl;
  }

  /**
   * @return how long an in-progress claim blocks other claimants
   */
  public Duration lease() {
    return lease;
  }

  /**
   * @return how long a duplicate waits for an in-flight execution; zero fails fast
   */
  public Duration settleTimeout() {
    return settleTimeout;
  }

  /**
   * @return the longest wait between two polls of a waiting duplicate (its first poll comes after 2
   *     ms, and the waits double up to this)
   */
  public Duration pollInterval() {
    return pollInterval;
  }

  @Override
  public String toString() {
    return "IdempotencyConfig[ttl="
        + ttl
        + ", lease="
        + lease
        + ", settleTimeout="
        + settleTimeout
        + ", pollInterval="
        + pollInterval
        + "]";
  }

  /** Builds {@link IdempotencyConfig}. Not thread-safe. */
  public static final class Builder {
    private Duration ttl = DEFAULT_TTL;
    private Duration lease = DEFAULT_LEASE;
    private Duration settleTimeout = DEFAULT_SETTLE_TIMEOUT;
    private Duration pollInterval = DEFAULT_POLL_INTERVAL;

    private Builder() {}

    /**
     * @param ttl retention of completed outcomes; positive
     * @return this builder
     */
    public Builder ttl(Duration ttl) {
      this.ttl = Durations.requirePositive(ttl, "ttl");
      return this;
    }

    /**
     * @param lease lease of a claim; positive
     * @return this builder
     */
    public Builder lease(Duration lease) {
      this.lease = Durations.requirePositive(lease, "lease");
      return this;
    }

    /**
     * @param settleTimeout wait for an in-flight duplicate; zero or positive
     * @return this builder
     */
    public Builder settleTimeout(Duration settleTimeout) {
      Objects.requireNonNull(settleTimeout, "settleTimeout");
      if (settleTimeout.isNegative()) {
        throw new IllegalArgumentException(
            "settleTimeout must not be negative, was " + settleTimeout);
      }
      this.settleTimeout = settleTimeout;
      return this;
    }

    /**
     * @param pollInterval the longest wait between two store polls while settling (the first comes
     *     after 2 ms, later waits double up to this); positive
     * @return this builder
     */
    public Builder pollInterval(Duration pollInterval) {
      this.pollInterval = Durations.requirePositive(pollInterval, "pollInterval");
      return this;
    }

    /**
     * @return the options
     * @throws IllegalArgumentException when the poll interval exceeds a non-zero settle timeout
     */
    public IdempotencyConfig build() {
      if (!settleTimeout.isZero() && pollInterval.compareTo(settleTimeout) > 0) {
        throw new IllegalArgumentException(
            "pollInterval ("
                + pollInterval
                + ") must not exceed settleTimeout ("
                + settleTimeout
                + ")");
      }
      return new IdempotencyConfig(this);
    }
  }
}

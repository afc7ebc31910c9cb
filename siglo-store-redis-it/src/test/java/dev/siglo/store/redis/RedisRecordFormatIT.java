package dev.siglo.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.siglo.consumer.error.IdempotencyKeyReuseException;
import dev.siglo.consumer.key.IdempotencyKeys;
import dev.siglo.consumer.store.ClaimRequest;
import dev.siglo.consumer.store.ClaimResult;
import dev.siglo.consumer.store.ClaimToken;
import dev.siglo.consumer.store.CompleteRequest;
import dev.siglo.consumer.store.Outcome;
import dev.siglo.testkit.MutableClock;
import dev.siglo.testkit.RedisServerExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.RedisClient;

/**
 * Records of both formats on one server, as in a rolling upgrade from 1.0: hashes written the way
 * 1.0's scripts wrote them are read by a store writing strings, and a store with {@code
 * hashRecords(true)} writes hashes in 1.0's layout.
 */
class RedisRecordFormatIT {
  @RegisterExtension
  static final RedisServerExtension REDIS = RedisServerExtension.startOrExternal();

  private static final String PREFIX = "format:";
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Duration TTL = Duration.ofHours(1);

  private final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T12:00:00Z"));
  private RedisClient raw;
  private RedisIdempotencyStore strings;
  private RedisIdempotencyStore hashes;

  @BeforeEach
  void open() {
    raw = RedisClient.create(REDIS.server().host(), REDIS.server().port());
    strings = store(false);
    hashes = store(true);
    strings.clear();
  }

  @AfterEach
  void close() {
    strings.close();
    hashes.close();
    raw.close();
  }

  private RedisIdempotencyStore store(boolean hashRecords) {
    return RedisIdempotencyStore.of(
        RedisStoreConfig.custom()
            .hostAndPort(REDIS.server().host(), REDIS.server().port())
            .keyPrefix(PREFIX)
            .hashRecords(hashRecords)
            .clock(clock)
            .build());
  }

  /** A claim as 1.0's claim script wrote it: one delivery, no takeover, the lease from now. */
  private void writeHashClaimOf10(String key, String token, String fingerprint) {
    raw.hset(
        PREFIX + key,
        Map.of(
            "s",
            "p",
            "t",
            token,
            "f",
            fingerprint,
            "l",
            millisFromNow(LEASE),
            "p",
            PREFIX,
            "d",
            "1",
            "x",
            "0"));
  }

  private String millisFromNow(Duration d) {
    return Long.toString(clock.millis() + d.toMillis());
  }

  @Test
  void aCompletedHashOf10IsACompletedKeyAndClearRemovesIt() {
    String key = IdempotencyKeys.defaults().key("order-1");
    raw.hset(
        PREFIX + key,
        Map.of(
            "s",
            "c",
            "o",
            "{\"kind\":\"success\",\"result\":\"\\\"paid\\\"\"}",
            "r",
            millisFromNow(TTL),
            "f",
            "",
            "t",
            "",
            "l",
            "",
            "p",
            PREFIX));

    ClaimResult claim = strings.claim(new ClaimRequest(key, null, LEASE));

    assertThat(claim).isEqualTo(new ClaimResult.Completed(new Outcome.Success("\"paid\"")));
    assertThat(strings.getResult(key)).contains(new Outcome.Success("\"paid\""));
    strings.clear();
    assertThat(raw.exists(PREFIX + key)).isFalse();
  }

  @Test
  void anAbandonedHashClaimOf10IsTakenOverWithItsCountsAndRewrittenAsAString() {
    String key = IdempotencyKeys.defaults().key("order-2");
    writeHashClaimOf10(key, "tok-1-0", "");
    raw.pexpire(PREFIX + key, LEASE.plusHours(1).toMillis());

    assertThat(strings.claim(new ClaimRequest(key, null, LEASE)))
        .isInstanceOf(ClaimResult.InProgress.class);
    clock.advance(LEASE.plusSeconds(1));
    ClaimResult takeover = strings.claim(new ClaimRequest(key, null, LEASE, true));

    assertThat(takeover)
        .isInstanceOfSatisfying(
            ClaimResult.Claimed.class,
            c -> {
              assertThat(c.takeover()).isTrue();
              assertThat(c.deliveries()).isEqualTo(2);
              assertThat(c.takeovers()).isEqualTo(1);
            });
    assertThat(raw.type(PREFIX + key)).isEqualTo("string");
  }

  @Test
  void aHashClaimOf10IsCompletedByItsTokenAndNoOther() {
    String key = IdempotencyKeys.defaults().key("order-3");
    writeHashClaimOf10(key, "tok-1-1", "fp");

    assertThat(
            strings.completeAll(
                List.of(
                    new CompleteRequest(
                        key, new ClaimToken("tok-1-1|x"), new Outcome.Success("1"), TTL))))
        .as("a token that only starts with the holder's")
        .allMatch(r -> r.failure() != null);
    strings.complete(key, new ClaimToken("tok-1-1"), new Outcome.Success("2"), TTL);

    assertThat(strings.getResult(key)).contains(new Outcome.Success("2"));
    assertThatThrownBy(() -> strings.claim(new ClaimRequest(key, "other", LEASE)))
        .as("the fingerprint came along")
        .isInstanceOf(IdempotencyKeyReuseException.class);
  }

  @Test
  void hashRecordsWritesThe10LayoutThatAStringStoreReads() {
    String key = IdempotencyKeys.defaults().key("order-4");
    ClaimToken token =
        ((ClaimResult.Claimed) hashes.claim(new ClaimRequest(key, null, LEASE))).token();
    assertThat(raw.hgetAll(PREFIX + key))
        .containsEntry("s", "p")
        .containsEntry("t", token.value())
        .containsEntry("l", millisFromNow(LEASE));

    hashes.complete(key, token, new Outcome.Success("3"), TTL);

    assertThat(raw.hgetAll(PREFIX + key))
        .containsEntry("s", "c")
        .containsEntry("r", millisFromNow(TTL))
        .containsKey("o");
    assertThat(strings.getResult(key)).contains(new Outcome.Success("3"));
  }
}

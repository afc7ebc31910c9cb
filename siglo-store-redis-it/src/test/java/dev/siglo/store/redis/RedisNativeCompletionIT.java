package dev.siglo.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.siglo.consumer.key.IdempotencyKeys;
import dev.siglo.consumer.store.ClaimRequest;
import dev.siglo.consumer.store.ClaimResult;
import dev.siglo.consumer.store.ClaimToken;
import dev.siglo.consumer.store.Outcome;
import dev.siglo.testkit.RedisServerExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.RedisClient;

/**
 * Completions without a script ({@link RedisCompletions}): the fenced write under {@code WATCH}, a
 * record changed between the read and the write left to the script, connections given back without
 * their watch, and retention under the server clock.
 */
class RedisNativeCompletionIT {
  @RegisterExtension
  static final RedisServerExtension REDIS = RedisServerExtension.startOrExternal();

  private static final String PREFIX = "native:";
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Duration TTL = Duration.ofHours(1);

  private RedisClient raw;

  @BeforeEach
  void open() {
    raw = RedisClient.create(REDIS.server().host(), REDIS.server().port());
  }

  @AfterEach
  void close() {
    raw.close();
  }

  private RedisStoreConfig.Builder config() {
    return RedisStoreConfig.custom()
        .hostAndPort(REDIS.server().host(), REDIS.server().port())
        .keyPrefix(PREFIX);
  }

  private static ClaimToken claimed(RedisIdempotencyStore store, String key) {
    return ((ClaimResult.Claimed) store.claim(new ClaimRequest(key, "fp", LEASE))).token();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aRecordChangedBetweenTheReadAndTheWriteIsLeftToTheScriptAndKeptAsItIs() {
    try (RedisIdempotencyStore store = RedisIdempotencyStore.of(config().build())) {
      store.clear();
      String key = IdempotencyKeys.defaults().key("taken-over");
      ClaimToken token = claimed(store, key);
      String otherClaim = "p|other-token|~60000||1|1|2|7|fp" + PREFIX;
      RedisCompletions completions =
          new RedisCompletions(
              raw::pipelined,
              bytes(PREFIX),
              60_000,
              null,
              5,
              () -> raw.set(PREFIX + key, otherClaim));
      List<byte[]> args = new ArrayList<>(List.of(new byte[0], new byte[0], bytes("60000")));
      args.add(0, new byte[0]);
      args.add(0, new byte[0]);
      args.add(bytes(token.value()));
      args.add(bytes("{\"kind\":\"success\",\"result\":\"1\"}"));
      args.add(bytes(Long.toString(TTL.toMillis())));
      AtomicReference<List<byte[]>> scripted = new AtomicReference<>();

      List<Object> answers =
          completions.complete(
              List.of(bytes(PREFIX + key)),
              args,
              (k, a) -> {
                scripted.set(k);
                return List.of(0L);
              });

      assertThat(answers).containsExactly(0L);
      assertThat(scripted.get()).hasSize(1);
      assertThat(raw.get(PREFIX + key))
          .as("the other claim is not overwritten")
          .isEqualTo(otherClaim);
    }
  }

  @Test
  void aConnectionIsGivenBackWithoutTheWatchOfABatchTheScriptAnswered() {
    try (RedisIdempotencyStore store = RedisIdempotencyStore.of(config().poolSize(1).build());
        RedisClient probe = RedisClient.create(REDIS.server().host(), REDIS.server().port())) {
      store.clear();
      String stale = IdempotencyKeys.defaults().key("stale");
      claimed(store, stale);
      assertThat(
              store.completeAll(
                  List.of(
                      new dev.siglo.consumer.store.CompleteRequest(
                          stale, new ClaimToken("not-the-holder"), new Outcome.Success("1"), TTL))))
          .allMatch(r -> r.failure() != null);
      raw.set(PREFIX + stale, "p|someone-else|~60000||1|0|0|7|" + PREFIX);
      String fresh = IdempotencyKeys.defaults().key("fresh");
      ClaimToken token = claimed(store, fresh);
      long scriptsBefore = RedisStoreIT.scriptCalls(probe);

      store.complete(fresh, token, new Outcome.Success("2"), TTL);

      assertThat(RedisStoreIT.scriptCalls(probe) - scriptsBefore)
          .as("the one pooled connection no longer watches the stale key")
          .isZero();
      assertThat(store.getResult(fresh)).contains(new Outcome.Success("2"));
    }
  }

  @Test
  void underTheServerClockANativeCompletionIsKeptForItsRetentionAndNoLonger() {
    try (RedisIdempotencyStore store = RedisIdempotencyStore.of(config().build())) {
      store.clear();
      String key = IdempotencyKeys.defaults().key("short-retention");
      ClaimToken token = claimed(store, key);

      store.complete(key, token, new Outcome.Success("3"), Duration.ofMillis(500));

      assertThat(raw.get(PREFIX + key)).startsWith("c|||~");
      assertThat(store.claim(new ClaimRequest(key, "fp", LEASE)))
          .isEqualTo(new ClaimResult.Completed(new Outcome.Success("3")));
      assertThat(store.getResult(key)).contains(new Outcome.Success("3"));
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  store.claim(new ClaimRequest(key, "fp", LEASE)) instanceof ClaimResult.Claimed c
                      && !c.takeover());
      assertThat(store.getResult(key)).isEmpty();
    }
  }
}

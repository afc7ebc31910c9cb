package dev.siglo.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.siglo.consumer.error.IdempotencyStoreUnavailableException;
import dev.siglo.consumer.error.InvalidIdempotencyKeyException;
import dev.siglo.consumer.error.OutcomeTooLargeException;
import dev.siglo.consumer.error.SigloConfigurationException;
import dev.siglo.consumer.key.IdempotencyKeys;
import dev.siglo.consumer.store.BatchClaimResult;
import dev.siglo.consumer.store.BatchCompleteResult;
import dev.siglo.consumer.store.ClaimRequest;
import dev.siglo.consumer.store.ClaimResult;
import dev.siglo.consumer.store.ClaimStatus;
import dev.siglo.consumer.store.ClaimToken;
import dev.siglo.consumer.store.CompleteRequest;
import dev.siglo.consumer.store.JsonOutcomeCodec;
import dev.siglo.consumer.store.Outcome;
import dev.siglo.testkit.FreePorts;
import dev.siglo.testkit.MultiProcessClaimRace;
import dev.siglo.testkit.RedisServer;
import dev.siglo.testkit.RedisServerExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.SslOptions;

class RedisStoreIT {
  @RegisterExtension
  static final RedisServerExtension REDIS = RedisServerExtension.startOrExternal();

  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Duration TTL = Duration.ofHours(1);

  private static RedisStoreConfig.Builder config(RedisServer server) {
    return RedisStoreConfig.custom().hostAndPort(server.host(), server.port());
  }

  private static ClaimToken claimed(RedisIdempotencyStore store, String key) {
    return ((ClaimResult.Claimed) store.claim(new ClaimRequest(key, null, LEASE))).token();
  }

  @Test
  void aBatchOfNewKeysIsClaimedAndCompletedWithoutAScriptAndItsDuplicatesInOneScriptCall() {
    try (RedisIdempotencyStore store =
            RedisIdempotencyStore.of(config(REDIS.server()).keyPrefix("batch:").build());
        RedisClient probe = RedisClient.create(REDIS.server().host(), REDIS.server().port())) {
      store.checkConnection();
      List<ClaimRequest> requests = new ArrayList<>();
      for (int i = 0; i < 1000; i++) {
        requests.add(new ClaimRequest(IdempotencyKeys.defaults().key("b-" + i), null, LEASE));
      }
      store.claim(new ClaimRequest(IdempotencyKeys.defaults().key("warm-up"), null, LEASE));
      long before = scriptCalls(probe);
      long setsBefore = calls(probe, "set");

      List<BatchClaimResult> results = store.claimAll(requests);

      assertThat(scriptCalls(probe) - before).isZero();
      assertThat(calls(probe, "set") - setsBefore).isEqualTo(1000);
      assertThat(results).hasSize(1000).allMatch(r -> r.result().status() == ClaimStatus.CLAIMED);

      List<CompleteRequest> completions = new ArrayList<>();
      for (BatchClaimResult r : results) {
        ClaimToken token = ((ClaimResult.Claimed) r.result()).token();
        completions.add(
            new CompleteRequest(
                r.request().key(), token, new Outcome.Success("1"), Duration.ofHours(1)));
      }
      long beforeCompletion = scriptCalls(probe);
      long execsBefore = calls(probe, "exec");
      List<BatchCompleteResult> completed = store.completeAll(completions);
      assertThat(scriptCalls(probe) - beforeCompletion).isZero();
      assertThat(calls(probe, "exec") - execsBefore).isEqualTo(1);
      assertThat(completed).hasSize(1000).allMatch(r -> r.failure() == null);
      assertThat(store.getResult(requests.get(999).key())).contains(new Outcome.Success("1"));

      long beforeDuplicates = scriptCalls(probe);
      List<BatchClaimResult> duplicates = store.claimAll(requests);
      assertThat(scriptCalls(probe) - beforeDuplicates).isEqualTo(1);
      assertThat(duplicates)
          .hasSize(1000)
          .allMatch(r -> r.result().equals(new ClaimResult.Completed(new Outcome.Success("1"))));
    }
  }

  static long scriptCalls(RedisClient probe) {
    return calls(probe, "evalsha") + calls(probe, "eval");
  }

  /** How many times the server ran a command so far, from INFO commandstats. */
  static long calls(RedisClient probe, String command) {
    String stat = "cmdstat_" + command + ":";
    for (String line : probe.info("commandstats").split("\r\n")) {
      if (line.startsWith(stat)) {
        String c = line.substring(line.indexOf("calls=") + 6);
        return Long.parseLong(c.substring(0, c.indexOf(',')));
      }
    }
    return 0;
  }

  @Test
  void withTheServerClockLeasesExpireInRealTime() {
    try (RedisIdempotencyStore store =
        RedisIdempotencyStore.of(config(REDIS.server()).keyPrefix("clock:").build())) {
      String key = IdempotencyKeys.defaults().key("short-lease");
      ClaimResult first = store.claim(new ClaimRequest(key, null, Duration.ofMillis(300)));
      assertThat(first.status()).isEqualTo(ClaimStatus.CLAIMED);
      assertThat(store.claim(new ClaimRequest(key, null, Duration.ofMillis(300))).status())
          .isEqualTo(ClaimStatus.IN_PROGRESS);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  store.claim(new ClaimRequest(key, null, LEASE)) instanceof ClaimResult.Claimed c
                      && c.takeover());
    }
  }

  @Test
  void hostileKeysAndOutcomesAreStoredVerbatimOrRejectedAndNothingElseChanges() {
    try (RedisIdempotencyStore store =
            RedisIdempotencyStore.of(config(REDIS.server()).keyPrefix("hostile:").build());
        RedisIdempotencyStore neighbour =
            RedisIdempotencyStore.of(config(REDIS.server()).keyPrefix("neighbour:").build())) {
      store.clear();
      String witness = IdempotencyKeys.defaults().key("witness");
      neighbour.complete(
          witness, claimed(neighbour, witness), new Outcome.Success("\"kept\""), TTL);

      String megabyte = "k".repeat(1 << 20);
      IdempotencyKeys keys = IdempotencyKeys.custom().maxRawLength(2 << 20).build();
      String digested = keys.key(megabyte);
      assertThat(digested).hasSizeLessThan(100);
      store.complete(digested, claimed(store, digested), new Outcome.Success("1"), TTL);
      assertThat(store.getResult(digested)).contains(new Outcome.Success("1"));

      assertThatThrownBy(() -> store.claim(new ClaimRequest("evil\r\nFLUSHALL\r\n", null, LEASE)))
          .isInstanceOf(InvalidIdempotencyKeyException.class);
      String lua = IdempotencyKeys.defaults().key("'); redis.call('FLUSHALL'); --");
      String notUtf8Result =
          new String(new byte[] {'"', (byte) 0xC3, (byte) 0x28, '"'}, StandardCharsets.ISO_8859_1);
      store.complete(lua, claimed(store, lua), new Outcome.Success(notUtf8Result), TTL);
      assertThat(store.getResult(lua)).contains(new Outcome.Success(notUtf8Result));

      int limit = JsonOutcomeCodec.DEFAULT_MAX_BYTES;
      int envelope = JsonOutcomeCodec.of().encode(new Outcome.Success("")).length;
      String atLimit = "a".repeat(limit - envelope);
      String overLimit = atLimit + "a";
      String big = IdempotencyKeys.defaults().key("big");
      ClaimToken t = claimed(store, big);
      assertThatThrownBy(() -> store.complete(big, t, new Outcome.Success(overLimit), TTL))
          .isInstanceOf(OutcomeTooLargeException.class)
          .hasMessageContaining((limit + 1) + " bytes");
      assertThat(store.claim(new ClaimRequest(big, null, LEASE)).status())
          .isEqualTo(ClaimStatus.IN_PROGRESS);
      store.complete(big, t, new Outcome.Success(atLimit), TTL);
      assertThat(store.getResult(big)).contains(new Outcome.Success(atLimit));

      store.clear();
      assertThat(store.getResult(lua)).isEmpty();
      assertThat(neighbour.getResult(witness)).contains(new Outcome.Success("\"kept\""));
    }
  }

  @Test
  void clearStaysInsideItsOwnStoreWhenAnotherStoresPrefixStartsWithItsPrefix() {
    try (RedisIdempotencyStore outer =
            RedisIdempotencyStore.of(config(REDIS.server()).keyPrefix("app1:").build());
        RedisIdempotencyStore nested =
            RedisIdempotencyStore.of(config(REDIS.server()).keyPrefix("app1:2:").build())) {
      String key = IdempotencyKeys.defaults().key("order-1");
      outer.complete(key, claimed(outer, key), new Outcome.Success("\"outer\""), TTL);
      nested.complete(key, claimed(nested, key), new Outcome.Success("\"nested\""), TTL);
      String held = IdempotencyKeys.defaults().key("order-2");
      claimed(nested, held);

      outer.clear();

      assertThat(outer.getResult(key)).isEmpty();
      assertThat(nested.getResult(key)).contains(new Outcome.Success("\"nested\""));
      assertThat(nested.claim(new ClaimRequest(held, null, LEASE)).status())
          .as("a live claim of the nested store survives too")
          .isEqualTo(ClaimStatus.IN_PROGRESS);
      nested.clear();
      assertThat(nested.getResult(key)).isEmpty();
    }
  }

  @Test
  void anUnreachableRedisIsUnavailableQuicklyAndNamesNoSecret() {
    RedisStoreConfig unreachable =
        RedisStoreConfig.custom()
            .hostAndPort("127.0.0.1", FreePorts.loopback())
            .credentials("app", "s3cr3t-password")
            .timeouts(Duration.ofMillis(300), Duration.ofMillis(300))
            .build();
    try (RedisIdempotencyStore store = RedisIdempotencyStore.of(unreachable)) {
      assertThatThrownBy(store::checkConnection)
          .isInstanceOf(IdempotencyStoreUnavailableException.class)
          .hasCauseInstanceOf(redis.clients.jedis.exceptions.JedisException.class)
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("s3cr3t"));
      assertThatThrownBy(
              () -> store.claim(new ClaimRequest(IdempotencyKeys.defaults().key("x"), null, LEASE)))
          .isInstanceOf(IdempotencyStoreUnavailableException.class);
      assertThat(unreachable.toString()).doesNotContain("s3cr3t").contains("password=****");
    }
  }

  @Test
  void credentialsAreCheckedAndNeverEchoed() {
    try (RedisServer secured = RedisServer.custom().password("right-horse-battery").start()) {
      try (RedisIdempotencyStore none = RedisIdempotencyStore.of(config(secured).build())) {
        assertThatThrownBy(none::checkConnection)
            .isInstanceOf(SigloConfigurationException.class)
            .hasMessageContaining("requires a password");
      }
      try (RedisIdempotencyStore wrong =
          RedisIdempotencyStore.of(config(secured).credentials(null, "wrong-staple").build())) {
        assertThatThrownBy(wrong::checkConnection)
            .isInstanceOf(SigloConfigurationException.class)
            .hasMessageContaining("rejected the credentials")
            .satisfies(
                e ->
                    assertThat(e.getMessage())
                        .doesNotContain("wrong-staple")
                        .doesNotContain("right-horse"));
      }
      try (RedisIdempotencyStore right =
          RedisIdempotencyStore.of(
              config(secured).credentials(null, "right-horse-battery").database(3).build())) {
        String key = IdempotencyKeys.defaults().key("authed");
        right.complete(key, claimed(right, key), new Outcome.Success("true"), TTL);
        assertThat(right.getResult(key)).contains(new Outcome.Success("true"));
      }
    }
  }

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void anOutageFailsCallersTransientlyLeavesNoForbiddenStateAndTheSameStoreRecovers()
      throws Exception {
    try (RedisServer server = RedisServer.custom().persistent(true).start();
        RedisIdempotencyStore store =
            RedisIdempotencyStore.of(
                config(server).timeouts(Duration.ofMillis(500), Duration.ofMillis(500)).build())) {
      String before = IdempotencyKeys.defaults().key("completed-before-outage");
      store.complete(before, claimed(store, before), new Outcome.Success("\"durable\""), TTL);

      Map<String, String> completed = new HashMap<>();
      Map<String, ClaimToken> unsure = new HashMap<>();
      int unavailable = 0;
      for (int i = 0; i < 400; i++) {
        if (i == 150) {
          server.stop();
        }
        if (i == 250) {
          server.start();
        }
        String key = IdempotencyKeys.defaults().key("outage-" + i);
        ClaimToken token = null;
        try {
          ClaimResult r = store.claim(new ClaimRequest(key, null, LEASE));
          token = ((ClaimResult.Claimed) r).token();
          store.complete(key, token, new Outcome.Success(String.valueOf(i)), TTL);
          completed.put(key, String.valueOf(i));
        } catch (IdempotencyStoreUnavailableException e) {
          unavailable++;
          if (token != null) {
            unsure.put(key, token);
          }
        }
      }

      assertThat(unavailable).as("callers saw the outage").isPositive();
      assertThat(store.getResult(before))
          .as("persisted across the restart")
          .contains(new Outcome.Success("\"durable\""));
      for (Map.Entry<String, String> c : completed.entrySet()) {
        assertThat(store.getResult(c.getKey())).contains(new Outcome.Success(c.getValue()));
      }
      for (Map.Entry<String, ClaimToken> u : unsure.entrySet()) {
        ClaimResult now = store.claim(new ClaimRequest(u.getKey(), null, LEASE));
        assertThat(now.status())
            .isIn(ClaimStatus.IN_PROGRESS, ClaimStatus.COMPLETED, ClaimStatus.CLAIMED);
      }
      String after = IdempotencyKeys.defaults().key("after-outage");
      store.complete(after, claimed(store, after), new Outcome.Success("\"ok\""), TTL);
      assertThat(store.getResult(after)).contains(new Outcome.Success("\"ok\""));
    }
  }

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void severalProcessesRacingForTheSameKeysGetExactlyOneClaimPerKey() throws Exception {
    int keys = 10_000;
    RedisServer server = REDIS.server();
    List<List<String>> won =
        MultiProcessClaimRace.run(
            RedisStoreFactory.class, "redis://" + server.host() + ":" + server.port(), 4, keys);

    MultiProcessClaimRace.assertOneClaimPerKey(won, keys);
  }

  @Test
  void tlsConnectionsWorkWithTheRightTrustStoreAndFailClearlyWithout() {
    assumeTrue(onPath("openssl"), "openssl is needed to make a test certificate");
    RedisServer tlsServer;
    try {
      tlsServer = RedisServer.custom().tls(true).start();
    } catch (IllegalStateException e) {
      assumeTrue(false, "this redis-server cannot serve TLS: " + e.getMessage());
      return;
    }
    try (tlsServer) {
      SslOptions trusted =
          SslOptions.builder()
              .truststore(
                  tlsServer.trustStore().orElseThrow().toFile(),
                  RedisServer.TRUST_STORE_PASSWORD.toCharArray())
              .trustStoreType("PKCS12")
              .build();
      try (RedisIdempotencyStore store =
          RedisIdempotencyStore.of(config(tlsServer).tls(trusted).build())) {
        String key = IdempotencyKeys.defaults().key("over-tls");
        store.complete(key, claimed(store, key), new Outcome.Success("\"encrypted\""), TTL);
        assertThat(store.getResult(key)).contains(new Outcome.Success("\"encrypted\""));
        assertThat(store.toString()).contains("rediss://");
      }
      try (RedisIdempotencyStore untrusted =
          RedisIdempotencyStore.of(
              config(tlsServer)
                  .tls(true)
                  .timeouts(Duration.ofSeconds(1), Duration.ofSeconds(1))
                  .build())) {
        assertThatThrownBy(untrusted::checkConnection)
            .isInstanceOf(IdempotencyStoreUnavailableException.class);
      }
      try (RedisIdempotencyStore plain =
          RedisIdempotencyStore.of(
              config(tlsServer).timeouts(Duration.ofMillis(500), Duration.ofMillis(500)).build())) {
        assertThatThrownBy(plain::checkConnection)
            .isInstanceOf(IdempotencyStoreUnavailableException.class);
      }
    }
  }

  private static boolean onPath(String command) {
    String path = System.getenv("PATH");
    return path != null
        && java.util.Arrays.stream(path.split(java.io.File.pathSeparator))
            .anyMatch(d -> java.nio.file.Files.isExecutable(java.nio.file.Path.of(d, command)));
  }
}

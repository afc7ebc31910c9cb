package dev.siglo.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.siglo.consumer.key.IdempotencyKeys;
import dev.siglo.consumer.store.ClaimRequest;
import dev.siglo.consumer.store.ClaimResult;
import dev.siglo.consumer.store.ClaimToken;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.consumer.store.Outcome;
import dev.siglo.consumer.store.StoredRecord;
import dev.siglo.testkit.PostgresServer;
import dev.siglo.testkit.RedisServer;
import dev.siglo.testkit.SharedServers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code siglo inspect} and {@code siglo forget}, each in its own JVM as an operator runs them,
 * against records a consumer's store wrote on a real Redis and a real PostgreSQL.
 */
class StoreCommandsIT {
  private static final IdempotencyKeys KEYS = IdempotencyKeys.custom().namespace("ops").build();

  @TempDir Path dir;

  private SigloProcess.Result siglo(String stdin, String... args) throws Exception {
    return SigloProcess.run(dir, Map.of(), stdin, args);
  }

  private Path config(String store) throws Exception {
    Path file = dir.resolve("consumer.properties");
    Files.writeString(file, store + "siglo.key.namespace=ops\n");
    return file;
  }

  private static ClaimToken claim(IdempotencyStore store, String raw) {
    ClaimResult r = store.claim(new ClaimRequest(KEYS.key(raw), null, Duration.ofHours(1)));
    return ((ClaimResult.Claimed) r).token();
  }

  @Test
  void onRedis() throws Exception {
    RedisServer redis = SharedServers.redis();
    exercise(
        config(
            "siglo.store.type=redis\nsiglo.store.redis.url=redis://"
                + redis.host()
                + ":"
                + redis.port()
                + "\n"));
  }

  @Test
  void onPostgres() throws Exception {
    PostgresServer pg = SharedServers.postgres();
    exercise(config("siglo.store.type=postgres\nsiglo.store.postgres.url=" + pg.jdbcUrl() + "\n"));
  }

  @Test
  void theInMemoryStoreIsRefusedWithItsReason() throws Exception {
    SigloProcess.Result r = siglo("", "inspect", "-c", config("").toString(), "order-1");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.output())
        .contains(
            "siglo.store.type: the in-memory store lives inside the consumer's process; inspect and"
                + " forget need redis or postgres");
  }

  private void exercise(Path config) throws Exception {
    String c = config.toString();
    ClaimToken held;
    try (IdempotencyStore store =
        LauncherStores.build(LauncherConfig.load(config, Map.of())).store()) {
      store.complete(
          KEYS.key("order-1"),
          claim(store, "order-1"),
          new Outcome.Declined("com.acme.CardDeclined", "no funds", Map.of("code", "nsf")),
          Duration.ofHours(24));
      held = claim(store, "order-2");
    }

    SigloProcess.Result declined = siglo("", "inspect", "-c", c, "order-1");
    assertThat(declined.code()).as(declined.output()).isZero();
    assertThat(declined.output())
        .containsPattern("key +ff:idemp:ops:_:order-1")
        .containsPattern("state +COMPLETED\n")
        .containsPattern("retention end +\\S+Z \\(in 86\\d{3} s\\)")
        .containsPattern("outcome +declined: com.acme.CardDeclined: no funds \\{code=nsf\\}");
    SigloProcess.Result running = siglo("", "inspect", "-c", c, "order-2");
    assertThat(running.output())
        .containsPattern("state +IN_PROGRESS\n")
        .containsPattern("owner token +" + held.value())
        .containsPattern("lease end +\\S+Z \\(in 3[0-5]\\d\\d s\\)")
        .containsPattern("deliveries +1\n");
    SigloProcess.Result none =
        siglo("", "inspect", "-c", c, "--stored-key", "ff:idemp:ops:_:nothing");
    assertThat(none.code()).isEqualTo(1);
    assertThat(none.output()).contains("no record for ff:idemp:ops:_:nothing");

    SigloProcess.Result no = siglo("n\n", "forget", "-c", c, "order-1");
    assertThat(no.code()).isEqualTo(1);
    assertThat(no.output()).contains("[y/N]").contains("not forgotten");
    assertThat(state(config, "order-1")).isEqualTo(StoredRecord.State.COMPLETED);

    SigloProcess.Result yes = siglo("y\n", "forget", "-c", c, "--operator", "alice", "order-1");
    assertThat(yes.code()).as(yes.output()).isZero();
    assertThat(yes.output())
        .contains("forgot ff:idemp:ops:_:order-1")
        .containsPattern(
            "forgot ff:idemp:ops:_:order-1 by alice at \\S+ \\(the record was COMPLETED\\)");
    assertThat(state(config, "order-1")).isNull();

    SigloProcess.Result refused = siglo("", "forget", "-c", c, "--yes", "order-2");
    assertThat(refused.code()).isEqualTo(1);
    assertThat(refused.output())
        .contains("not forgotten: a live claim holds ff:idemp:ops:_:order-2");
    assertThat(state(config, "order-2")).isEqualTo(StoredRecord.State.IN_PROGRESS);
  }

  private static StoredRecord.State state(Path config, String raw) {
    try (IdempotencyStore store =
        LauncherStores.build(LauncherConfig.load(config, Map.of())).store()) {
      return store.inspect(KEYS.key(raw)).map(StoredRecord::state).orElse(null);
    }
  }
}

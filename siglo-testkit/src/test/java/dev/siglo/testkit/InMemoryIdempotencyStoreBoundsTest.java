package dev.siglo.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.siglo.consumer.error.IdempotencyStoreUnavailableException;
import dev.siglo.consumer.store.ClaimRequest;
import dev.siglo.consumer.store.ClaimResult;
import dev.siglo.consumer.store.ClaimStatus;
import dev.siglo.consumer.store.InMemoryIdempotencyStore;
import dev.siglo.consumer.store.Outcome;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class InMemoryIdempotencyStoreBoundsTest {
  private static final Duration LEASE = Duration.ofSeconds(30);
  private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final InMemoryIdempotencyStore store =
      InMemoryIdempotencyStore.custom().clock(clock).maxEntries(3).build();

  private ClaimResult claim(String key) {
    return store.claim(new ClaimRequest(key, null, LEASE));
  }

  private void claimAndComplete(String key) {
    ClaimResult.Claimed c = (ClaimResult.Claimed) claim(key);
    store.complete(key, c.token(), new Outcome.Success("\"" + key + "\""), Duration.ofHours(1));
  }

  @Test
  void atCapacityTheOldestCompletedRecordIsEvictedFirst() {
    claimAndComplete("a");
    claimAndComplete("b");
    claim("live");
    assertThat(claim("c").status()).isEqualTo(ClaimStatus.CLAIMED);
    assertThat(store.size()).isEqualTo(3);
    assertThat(store.getResult("a")).isEmpty();
    assertThat(store.getResult("b")).contains(new Outcome.Success("\"b\""));
    assertThat(claim("live").status()).isEqualTo(ClaimStatus.IN_PROGRESS);
  }

  @Test
  void liveClaimsAreNeverEvictedAndAFullStoreRefusesNewKeysTransiently() {
    claim("x");
    claim("y");
    claim("z");
    assertThatThrownBy(() -> claim("w"))
        .isInstanceOf(IdempotencyStoreUnavailableException.class)
        .hasMessageContaining("full");
    assertThat(claim("x").status()).isEqualTo(ClaimStatus.IN_PROGRESS);
    clock.advance(LEASE);
    assertThat(claim("w").status()).isEqualTo(ClaimStatus.CLAIMED);
    assertThat(store.size()).isLessThanOrEqualTo(3);
  }

  @Test
  void purgeRemovesExpiredRecordsOnly() {
    claimAndComplete("done");
    claim("abandoned");
    clock.advance(LEASE);
    claim("fresh");
    assertThat(store.purgeExpired()).isEqualTo(1);
    assertThat(store.size()).isEqualTo(2);
    assertThat(store.getResult("done")).isPresent();
  }

  @Test
  void evictionBookkeepingStaysBoundedUnderChurn() {
    for (int i = 0; i < 100; i++) {
      claimAndComplete("k" + (i % 3));
      clock.advance(Duration.ofHours(1));
    }
    assertThat(store.size()).isLessThanOrEqualTo(3);
    claimAndComplete("other");
    assertThat(store.getResult("other")).isPresent();
  }

  @Test
  void equalOutcomesMayShareStorageButEachKeyKeepsItsOwn() {
    InMemoryIdempotencyStore roomy = InMemoryIdempotencyStore.custom().clock(clock).build();
    String[] values = {"1", "2", "1", "null", "null", "2"};
    for (int i = 0; i < values.length; i++) {
      String key = "k" + i;
      ClaimResult.Claimed c = (ClaimResult.Claimed) roomy.claim(new ClaimRequest(key, null, LEASE));
      roomy.complete(key, c.token(), new Outcome.Success(values[i]), Duration.ofHours(1));
    }
    for (int i = 0; i < values.length; i++) {
      assertThat(roomy.getResult("k" + i)).contains(new Outcome.Success(values[i]));
    }
  }
}

package dev.siglo.testkit;

import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.consumer.store.InMemoryIdempotencyStore;

class InMemoryIdempotencyStoreContractTest extends IdempotencyStoreContract {
  @Override
  protected IdempotencyStore createStore(MutableClock clock) {
    return InMemoryIdempotencyStore.custom().clock(clock).build();
  }
}

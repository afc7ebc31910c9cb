package dev.siglo.testkit;

import dev.siglo.consumer.store.CoalescingIdempotencyStore;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.consumer.store.InMemoryIdempotencyStore;

/** The coalescing decorator the runtimes put in front of network stores keeps the contract. */
class CoalescingStoreContractTest extends IdempotencyStoreContract {
  @Override
  protected IdempotencyStore createStore(MutableClock clock) {
    return new CoalescingIdempotencyStore(InMemoryIdempotencyStore.custom().clock(clock).build());
  }
}

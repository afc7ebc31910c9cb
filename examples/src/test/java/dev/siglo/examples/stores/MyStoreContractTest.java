package dev.siglo.examples.stores;

import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.consumer.store.InMemoryIdempotencyStore;
import dev.siglo.testkit.IdempotencyStoreContract;
import dev.siglo.testkit.MutableClock;

// README:start store-contract
class MyStoreContractTest extends IdempotencyStoreContract {
  @Override
  protected IdempotencyStore createStore(MutableClock clock) {
    // your store here; expiry must follow the injected clock
    return InMemoryIdempotencyStore.custom().clock(clock).build();
  }
}
// README:end store-contract

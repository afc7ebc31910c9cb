package dev.siglo.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.siglo.consumer.key.IdempotencyKeys;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.util.JedisClusterCRC16;

class HashTaggedKeysTest {
  private final IdempotencyKeys keys = IdempotencyKeys.defaults();

  @Test
  void aMessageAndItsStepsShareOneHashSlot() {
    String message = keys.key("order-1");
    String charge = keys.scoped(message, "charge", "card-4242");
    String receipt = keys.scoped(message, "receipt", "mail");
    int slot = JedisClusterCRC16.getSlot("siglo:" + RedisIdempotencyStore.hashTagged(message));
    assertThat(JedisClusterCRC16.getSlot("siglo:" + RedisIdempotencyStore.hashTagged(charge)))
        .isEqualTo(slot);
    assertThat(JedisClusterCRC16.getSlot("siglo:" + RedisIdempotencyStore.hashTagged(receipt)))
        .isEqualTo(slot);
    assertThat(RedisIdempotencyStore.hashTagged(charge))
        .isEqualTo("{ff:idemp:_:_:order-1}:step:charge:card-4242");
  }

  @Test
  void taggingKeepsDifferentKeysApartWhateverTheyContain() {
    List<String> tricky =
        List.of(
            "a",
            "{a}",
            "a}",
            "{a",
            "a:step:b",
            "a}:step:b",
            "{a}:step:b",
            "a:step:b:step:c",
            "a:step:",
            ":step:a",
            "");
    Set<String> tagged = new HashSet<>();
    tricky.forEach(k -> tagged.add(RedisIdempotencyStore.hashTagged(k)));
    assertThat(tagged).hasSameSizeAs(tricky);
  }
}

package dev.siglo.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.siglo.kafka.internal.ShareInFlight.Held;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** The share consumer's held records: renewed records the client took back in flight. */
class ShareInFlightTest {
  private static ConsumerRecord<byte[], byte[]> record(long offset) {
    return new ConsumerRecord<>("t", 0, offset, new byte[0], new byte[0]);
  }

  private static Held receive(ShareInFlight held, long offset) {
    assertThat(held.received(record(offset), 0)).as("a new record").isNull();
    return held.find("t", 0, offset);
  }

  @Test
  void reclaimAnswersOnlyTheRenewedRecordsTheClientHasInFlightAgain() {
    ShareInFlight held = new ShareInFlight();
    Held running = receive(held, 0);
    Held done = receive(held, 1);
    Held stillRenewing = receive(held, 2);
    Held acknowledgeable = receive(held, 3);
    for (Held h : new Held[] {running, done, stillRenewing}) {
      h.acknowledgeable = false; // renewed
    }
    done.state = ShareInFlight.State.DONE;
    done.pending = AcknowledgeType.ACCEPT;
    Set<Long> inFlightAgain = Set.of(0L, 1L, 3L); // the client still renews offset 2
    Map<Long, AcknowledgeType> sent = new HashMap<>();

    var reclaimed =
        held.reclaim(
            (h, type) -> {
              if (!inFlightAgain.contains(h.record.offset())) {
                throw new IllegalStateException("The record cannot be acknowledged.");
              }
              sent.put(h.record.offset(), type);
            },
            42);

    assertThat(reclaimed).containsExactly(running, done);
    assertThat(sent)
        .as("the running record renewed again, the finished one its final acknowledgement")
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(0L, AcknowledgeType.RENEW, 1L, AcknowledgeType.ACCEPT));
    assertThat(running.renewedAt).isEqualTo(42);
    assertThat(running.acknowledgeable).isFalse();
    assertThat(held.find("t", 0, 1)).as("finally acknowledged, no longer held").isNull();
    assertThat(held.find("t", 0, 2)).isSameAs(stillRenewing);
    assertThat(stillRenewing.renewedAt).isZero();
    assertThat(acknowledgeable.acknowledgeable).as("not renewed: left to its own answer").isTrue();
    assertThat(held.size()).isEqualTo(3);
  }
}

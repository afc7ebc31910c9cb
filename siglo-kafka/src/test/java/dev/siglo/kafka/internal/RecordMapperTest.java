package dev.siglo.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.siglo.consumer.DeadLetterReason;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.engine.Disposition;
import dev.siglo.consumer.engine.MessageProcessor;
import dev.siglo.consumer.engine.MessageProcessorConfig;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** Kafka bytes to the engine's message: keys that are not UTF-8 must not collide. */
class RecordMapperTest {
  private final AtomicInteger runs = new AtomicInteger();
  private final MessageProcessor processor =
      MessageProcessor.of(
          MessageProcessorConfig.<String>builder(
                  PayloadDecoder.utf8(),
                  (payload, ctx) -> {
                    runs.incrementAndGet();
                    return "charged";
                  })
              .build());

  private static ConsumerRecord<byte[], byte[]> record(
      long offset, byte[] recordKey, byte[] headerKey) {
    ConsumerRecord<byte[], byte[]> r =
        new ConsumerRecord<>("orders", 0, offset, recordKey, "{}".getBytes(StandardCharsets.UTF_8));
    if (headerKey != null) {
      r.headers().add(MessageProcessorConfig.DEFAULT_KEY_HEADER, headerKey);
    }
    return r;
  }

  private Disposition process(ConsumerRecord<byte[], byte[]> r) {
    return processor.process(RecordMapper.toMessage(r, 1));
  }

  @Test
  void twoHeaderKeysThatAreNotUtf8AreRejectedInsteadOfSharingOneStoreKey() {
    Disposition first = process(record(0, null, new byte[] {(byte) 0xC3}));
    Disposition second = process(record(1, null, new byte[] {(byte) 0xC4}));

    for (Disposition d : new Disposition[] {first, second}) {
      assertThat(d)
          .isInstanceOfSatisfying(
              Disposition.DeadLetter.class,
              dl -> assertThat(dl.reason()).isEqualTo(DeadLetterReason.INVALID_KEY));
    }
    assertThat(runs).hasValue(0);
  }

  @Test
  void aRecordKeyThatIsNotUtf8IsRejectedToo() {
    Disposition d = process(record(0, new byte[] {'a', (byte) 0xFF}, null));

    assertThat(d)
        .isInstanceOfSatisfying(
            Disposition.DeadLetter.class,
            dl -> assertThat(dl.reason()).isEqualTo(DeadLetterReason.INVALID_KEY));
  }

  @Test
  void utf8KeysBeyondAsciiAreKeys() {
    Disposition first = process(record(0, "pedido-ñ".getBytes(StandardCharsets.UTF_8), null));
    Disposition again = process(record(1, "pedido-ñ".getBytes(StandardCharsets.UTF_8), null));

    assertThat(((Disposition.Ack) first).reason()).isEqualTo(Disposition.AckReason.PROCESSED);
    assertThat(((Disposition.Ack) again).reason()).isEqualTo(Disposition.AckReason.DUPLICATE);
    assertThat(runs).hasValue(1);
  }
}

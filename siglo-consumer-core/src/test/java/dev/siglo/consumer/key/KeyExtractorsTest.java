package dev.siglo.consumer.key;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.siglo.consumer.Message;
import dev.siglo.consumer.MessageSource;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class KeyExtractorsTest {
  private final Message kafka =
      Message.builder("orders-3@42", new MessageSource("kafka", "orders", 3, 42))
          .recordKey("customer-7")
          .header("idempotency-key", "order-1")
          .payload(
              "{\"order\":{\"id\":\"o-9\",\"n\":17,\"tags\":[1]}}".getBytes(StandardCharsets.UTF_8))
          .build();
  private final Message sqs =
      Message.builder("4f1c-msg", MessageSource.of("sqs", "orders.fifo"))
          .header("Idempotency-Key", "attr-1")
          .systemAttribute("MessageDeduplicationId", "dedup-1")
          .systemAttribute("MessageGroupId", "g-1")
          .payload("not json".getBytes(StandardCharsets.UTF_8))
          .build();

  @Test
  void readsHeadersRecordKeysAttributesDedupIdsAndMessageIds() throws Exception {
    assertThat(KeyExtractors.header("idempotency-key").extract(kafka, null)).contains("order-1");
    assertThat(KeyExtractors.header("absent").extract(kafka, null)).isEmpty();
    assertThat(KeyExtractors.recordKey().extract(kafka, null)).contains("customer-7");
    assertThat(KeyExtractors.recordKey().extract(sqs, null)).isEmpty();
    assertThat(KeyExtractors.attribute("Idempotency-Key").extract(sqs, null)).contains("attr-1");
    assertThat(KeyExtractors.deduplicationId().extract(sqs, null)).contains("dedup-1");
    assertThat(KeyExtractors.systemAttribute("MessageGroupId").extract(sqs, null)).contains("g-1");
    assertThat(KeyExtractors.messageId().extract(sqs, null)).contains("4f1c-msg");
  }

  @Test
  void jsonPointerReadsTextAndNumbersAndTreatsOtherNodesAsAbsent() throws Exception {
    assertThat(KeyExtractors.jsonPointer("/order/id").extract(kafka, null)).contains("o-9");
    assertThat(KeyExtractors.jsonPointer("/order/n").extract(kafka, null)).contains("17");
    assertThat(KeyExtractors.jsonPointer("/order/tags").extract(kafka, null)).isEmpty();
    assertThat(KeyExtractors.jsonPointer("/order/missing").extract(kafka, null)).isEmpty();
  }

  @Test
  void jsonPointerFailsOnAPayloadThatIsNotJson() {
    assertThatThrownBy(() -> KeyExtractors.jsonPointer("/id").extract(sqs, null))
        .isInstanceOf(JsonProcessingException.class);
    assertThatThrownBy(() -> KeyExtractors.jsonPointer("no-slash"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void fromValueAppliesAFunctionOfTheDecodedPayload() throws Exception {
    record Order(String id) {}
    IdempotencyKeyExtractor<Order> e = KeyExtractors.fromValue(Order::id);
    assertThat(e.extract(kafka, new Order("o-1"))).contains("o-1");
    assertThat(e.extract(kafka, new Order(null))).isEmpty();
  }

  @Test
  void firstPresentFallsBackPastAbsentAndBlankKeysAndDescribesItsChain() throws Exception {
    Message blankHeader =
        Message.builder("m-1", MessageSource.of("sqs", "q"))
            .header("idempotency-key", "  ")
            .build();
    IdempotencyKeyExtractor<Object> e =
        KeyExtractors.firstPresent(
            KeyExtractors.header("idempotency-key"),
            KeyExtractors.deduplicationId(),
            KeyExtractors.messageId());
    assertThat(e.extract(kafka, null)).contains("order-1");
    assertThat(e.extract(sqs, null)).contains("dedup-1");
    assertThat(e.extract(blankHeader, null)).contains("m-1");
    assertThat(e.describe())
        .isEqualTo(
            "header 'idempotency-key', else system attribute 'MessageDeduplicationId', else message id");
  }

  @Test
  void firstPresentStopsAtAFailingExtractorInsteadOfFallingBack() {
    IdempotencyKeyExtractor<Object> e =
        KeyExtractors.firstPresent(KeyExtractors.jsonPointer("/id"), KeyExtractors.messageId());
    assertThatThrownBy(() -> e.extract(sqs, null)).isInstanceOf(JsonProcessingException.class);
  }

  @Test
  void missingRecordKeyIsEmptyNotNull() throws Exception {
    Optional<String> key = KeyExtractors.recordKey().extract(sqs, null);
    assertThat(key).isNotNull().isEmpty();
  }

  @Test
  void parsesAKeySourceListFirstPresentWinsAndNamesABadSource() throws Exception {
    IdempotencyKeyExtractor<Object> e = KeyExtractors.parse(" header:absent , record-key");
    assertThat(e.extract(kafka, null)).contains("customer-7");
    assertThat(KeyExtractors.parse("json-pointer:/order/id").extract(kafka, null)).contains("o-9");
    assertThat(KeyExtractors.parse("deduplication-id,message-id").extract(sqs, null))
        .contains("dedup-1");
    assertThat(KeyExtractors.parse("attribute:Idempotency-Key").extract(sqs, null))
        .contains("attr-1");

    assertThatThrownBy(() -> KeyExtractors.parse("header:x,headr:y"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("'headr:y' is not a key source");
    assertThatThrownBy(() -> KeyExtractors.parse("header:"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("'header:' needs a name, for example header:idempotency-key");
  }
}

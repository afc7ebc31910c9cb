package dev.siglo.consumer.key;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.siglo.consumer.error.InvalidIdempotencyKeyException;
import dev.siglo.consumer.store.StoreKeys;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class IdempotencyKeysTest {

  @Test
  void buildsTheReferenceFormat() {
    assertThat(IdempotencyKeys.build("order-1234", "tenant-a", "2.0.0"))
        .isEqualTo("ff:idemp:tenant-a:2.0.0:order-1234");
  }

  @Test
  void absentNamespaceOrVersionIsWrittenAsUnderscoreSoSegmentsStayUnambiguous() {
    assertThat(IdempotencyKeys.build("order-1", null, null)).isEqualTo("ff:idemp:_:_:order-1");
    assertThat(IdempotencyKeys.build("order-1", "tenant-a", null))
        .isEqualTo("ff:idemp:tenant-a:_:order-1");
    assertThat(IdempotencyKeys.build("a:b", null, null))
        .isNotEqualTo(IdempotencyKeys.build("b", "a", null));
  }

  @Test
  void rawKeysMayContainColonsAndAreKeptVerbatim() {
    assertThat(IdempotencyKeys.build("charge:inv-1", "t", "1"))
        .isEqualTo("ff:idemp:t:1:charge:inv-1");
  }

  @Test
  void prefixIsConfigurable() {
    IdempotencyKeys keys = IdempotencyKeys.builder().prefix("acme:dedup").namespace("eu").build();
    assertThat(keys.build("o-1")).isEqualTo("acme:dedup:eu:_:o-1");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "a:b", "a b", "_", "tab\there", "nl\nx"})
  void invalidNamespacesAreRejectedNamingTheProblem(String namespace) {
    assertThatThrownBy(() -> IdempotencyKeys.build("k", namespace, "1"))
        .isInstanceOf(InvalidIdempotencyKeyException.class)
        .hasMessageContaining("namespace");
  }

  @Test
  void invalidVersionsAreRejectedNamingTheProblem() {
    assertThatThrownBy(() -> IdempotencyKeys.build("k", "t", "2:0"))
        .isInstanceOf(InvalidIdempotencyKeyException.class)
        .hasMessageContaining("version")
        .hasMessageContaining("':'");
    assertThatThrownBy(() -> IdempotencyKeys.build("k", "t", "v".repeat(65)))
        .isInstanceOf(InvalidIdempotencyKeyException.class)
        .hasMessageContaining("65 characters");
  }

  @Test
  void nullAndBlankKeysAreRejected() {
    assertThatThrownBy(() -> IdempotencyKeys.defaults().build(null))
        .isInstanceOf(InvalidIdempotencyKeyException.class)
        .hasMessage("idempotency key is null");
    assertThatThrownBy(() -> IdempotencyKeys.defaults().build(" \t "))
        .isInstanceOf(InvalidIdempotencyKeyException.class)
        .hasMessage("idempotency key is blank");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "a\u0000b",
        "a\nb",
        "a\rb",
        "a\u001bb",
        "a\u007fb",
        "a\u200bb",
        "a\u202eb",
        "a\u2028b",
        "a\ud800b",
        "a\udc00b",
        "a\ue000b"
      })
  void controlFormatAndBrokenSurrogateCharactersAreRejected(String raw) {
    assertThatThrownBy(() -> IdempotencyKeys.defaults().build(raw))
        .isInstanceOf(InvalidIdempotencyKeyException.class)
        .hasMessageContaining("control or format character U+")
        .hasMessageContaining("index 1");
  }

  @Test
  void validSurrogatePairsAndNonAsciiTextAreAccepted() {
    assertThat(IdempotencyKeys.defaults().build("pedido-\u00f1-\u4e2d-\ud83d\udcb3"))
        .endsWith("pedido-\u00f1-\u4e2d-\ud83d\udcb3");
  }

  @Test
  void keysUpToTheDigestThresholdAreKeptAndLongerOnesDigested() throws Exception {
    String atLimit = "k".repeat(IdempotencyKeys.DEFAULT_DIGEST_THRESHOLD);
    String over = atLimit + "k";
    assertThat(IdempotencyKeys.defaults().build(atLimit)).endsWith(":" + atLimit);

    String expectedDigest =
        HexFormat.of()
            .formatHex(
                MessageDigest.getInstance("SHA-256").digest(over.getBytes(StandardCharsets.UTF_8)));
    assertThat(IdempotencyKeys.defaults().build(over))
        .isEqualTo("ff:idemp:_:_:sha256:" + expectedDigest);
    assertThat(IdempotencyKeys.defaults().build(over + "x"))
        .isNotEqualTo(IdempotencyKeys.defaults().build(over));
  }

  @Test
  void hugeKeysAreRejectedWithoutEchoingThem() {
    String huge = "x".repeat(IdempotencyKeys.DEFAULT_MAX_RAW_LENGTH + 1);
    assertThatThrownBy(() -> IdempotencyKeys.defaults().build(huge))
        .isInstanceOf(InvalidIdempotencyKeyException.class)
        .hasMessage("idempotency key is 4097 characters, over the limit of 4096");
  }

  @Test
  void stepKeysAreScopedUnderTheMessageKey() {
    IdempotencyKeys keys = IdempotencyKeys.builder().namespace("t").version("1").build();
    String messageKey = keys.build("order-1");
    assertThat(keys.scoped(messageKey, "chargeCard", "charge:inv-1"))
        .isEqualTo("ff:idemp:t:1:order-1:step:chargeCard:charge:inv-1");
    assertThatThrownBy(() -> keys.scoped(messageKey, "bad:name", "x"))
        .isInstanceOf(InvalidIdempotencyKeyException.class)
        .hasMessageContaining("step name");
    assertThatThrownBy(() -> keys.scoped(messageKey, "ok", "x\ny"))
        .isInstanceOf(InvalidIdempotencyKeyException.class)
        .hasMessageContaining("step key");
  }

  @Test
  void theLongestBuiltStepKeyFitsInAStore() {
    IdempotencyKeys keys =
        IdempotencyKeys.builder()
            .prefix("p".repeat(64))
            .namespace("n".repeat(64))
            .version("v".repeat(64))
            .digestThreshold(512)
            .maxRawLength(4096)
            .build();
    String messageKey = keys.build("m".repeat(300));
    String stepKey = keys.scoped(messageKey, "s".repeat(64), "k".repeat(4000));
    assertThat(StoreKeys.requireValid(stepKey)).isEqualTo(stepKey);
  }

  @Test
  void builderRejectsInconsistentLimits() {
    assertThatThrownBy(() -> IdempotencyKeys.builder().digestThreshold(10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("digestThreshold");
    assertThatThrownBy(
            () -> IdempotencyKeys.builder().digestThreshold(200).maxRawLength(100).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxRawLength (100)");
    assertThatThrownBy(() -> IdempotencyKeys.builder().prefix("a b"))
        .isInstanceOf(InvalidIdempotencyKeyException.class);
  }
}

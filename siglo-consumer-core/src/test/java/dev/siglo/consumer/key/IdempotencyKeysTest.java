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
    assertThat(IdempotencyKeys.format("order-1234", "tenant-a", "2.0.0"))
        .isEqualTo("ff:idemp:tenant-a:2.0.0:order-1234");
  }

  @Test
  void absentNamespaceOrVersionIsWrittenAsUnderscoreSoSegmentsStayUnambiguous() {
    assertThat(IdempotencyKeys.format("order-1", null, null)).isEqualTo("ff:idemp:_:_:order-1");
    assertThat(IdempotencyKeys.format("order-1", "tenant-a", null))
        .isEqualTo("ff:idemp:tenant-a:_:order-1");
    assertThat(IdempotencyKeys.format("a:b", null, null))
        .isNotEqualTo(IdempotencyKeys.format("b", "a", null));
  }

  @Test
  void rawKeysMayContainColonsAndAreKeptVerbatim() {
    assertThat(IdempotencyKeys.format("charge:inv-1", "t", "1"))
        .isEqualTo("ff:idemp:t:1:charge:inv-1");
  }

  @Test
  void prefixIsConfigurable() {
    IdempotencyKeys keys = IdempotencyKeys.custom().prefix("acme:dedup").namespace("eu").build();
    assertThat(keys.key("o-1")).isEqualTo("acme:dedup:eu:_:o-1");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "a:b", "a b", "_", "tab\there", "nl\nx"})
  void invalidNamespacesAreRejectedNamingTheProblem(String namespace) {
    assertThatThrownBy(() -> IdempotencyKeys.format("k", namespace, "1"))
        .isInstanceOf(InvalidIdempotencyKeyException.class)
        .hasMessageContaining("namespace");
  }

  @Test
  void invalidVersionsAreRejectedNamingTheProblem() {
    assertThatThrownBy(() -> IdempotencyKeys.format("k", "t", "2:0"))
        .isInstanceOf(InvalidIdempotencyKeyException.class)
        .hasMessageContaining("version")
        .hasMessageContaining("':'");
    assertThatThrownBy(() -> IdempotencyKeys.format("k", "t", "v".repeat(65)))
        .isInstanceOf(InvalidIdempotencyKeyException.class)
        .hasMessageContaining("65 characters");
  }

  @Test
  void nullAndBlankKeysAreRejected() {
    assertThatThrownBy(() -> IdempotencyKeys.defaults().key(null))
        .isInstanceOf(InvalidIdempotencyKeyException.class)
        .hasMessage("idempotency key is null");
    assertThatThrownBy(() -> IdempotencyKeys.defaults().key(" \t "))
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
    assertThatThrownBy(() -> IdempotencyKeys.defaults().key(raw))
        .isInstanceOf(InvalidIdempotencyKeyException.class)
        .hasMessageContaining("control or format character U+")
        .hasMessageContaining("index 1");
  }

  @Test
  void validSurrogatePairsAndNonAsciiTextAreAccepted() {
    assertThat(IdempotencyKeys.defaults().key("pedido-\u00f1-\u4e2d-\ud83d\udcb3"))
        .endsWith("pedido-\u00f1-\u4e2d-\ud83d\udcb3");
  }

  @Test
  void keysUpToTheDigestThresholdAreKeptAndLongerOnesDigested() throws Exception {
    String atLimit = "k".repeat(IdempotencyKeys.DEFAULT_DIGEST_THRESHOLD);
    String over = atLimit + "k";
    assertThat(IdempotencyKeys.defaults().key(atLimit)).endsWith(":" + atLimit);

    String expectedDigest =
        HexFormat.of()
            .formatHex(
                MessageDigest.getInstance("SHA-256").digest(over.getBytes(StandardCharsets.UTF_8)));
    assertThat(IdempotencyKeys.defaults().key(over))
        .isEqualTo("ff:idemp:_:_:sha256:" + expectedDigest);
    assertThat(IdempotencyKeys.defaults().key(over + "x"))
        .isNotEqualTo(IdempotencyKeys.defaults().key(over));
  }

  @Test
  void hugeKeysAreRejectedWithoutEchoingThem() {
    String huge = "x".repeat(IdempotencyKeys.DEFAULT_MAX_RAW_LENGTH + 1);
    assertThatThrownBy(() -> IdempotencyKeys.defaults().key(huge))
        .isInstanceOf(InvalidIdempotencyKeyException.class)
        .hasMessage("idempotency key is 4097 characters, over the limit of 4096");
  }

  @Test
  void stepKeysAreScopedUnderTheMessageKey() {
    IdempotencyKeys keys = IdempotencyKeys.custom().namespace("t").version("1").build();
    String messageKey = keys.key("order-1");
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
        IdempotencyKeys.custom()
            .prefix("p".repeat(64))
            .namespace("n".repeat(64))
            .version("v".repeat(64))
            .digestThreshold(512)
            .maxRawLength(4096)
            .build();
    String messageKey = keys.key("m".repeat(300));
    String stepKey = keys.scoped(messageKey, "s".repeat(64), "k".repeat(4000));
    assertThat(StoreKeys.requireValid(stepKey)).isEqualTo(stepKey);
  }

  @Test
  void builderRejectsInconsistentLimits() {
    assertThatThrownBy(() -> IdempotencyKeys.custom().digestThreshold(10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("digestThreshold");
    assertThatThrownBy(
            () -> IdempotencyKeys.custom().digestThreshold(200).maxRawLength(100).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxRawLength (100)");
    assertThatThrownBy(() -> IdempotencyKeys.custom().prefix("a b"))
        .isInstanceOf(InvalidIdempotencyKeyException.class);
  }
}

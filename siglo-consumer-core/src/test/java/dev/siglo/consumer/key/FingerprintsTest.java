package dev.siglo.consumer.key;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.siglo.consumer.Message;
import dev.siglo.consumer.MessageSource;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class FingerprintsTest {
  private static Message payload(String json) {
    return Message.builder("m", MessageSource.of("test", "q"))
        .payload(json.getBytes(StandardCharsets.UTF_8))
        .build();
  }

  @Test
  void payloadFingerprintIsTheSha256OfTheBytes() throws Exception {
    String expected =
        HexFormat.of()
            .formatHex(
                MessageDigest.getInstance("SHA-256")
                    .digest("{\"a\":1}".getBytes(StandardCharsets.UTF_8)));
    assertThat(Fingerprints.payloadSha256().fingerprint(payload("{\"a\":1}"), null))
        .isEqualTo(expected);
  }

  @Test
  void jsonFieldsFingerprintIgnoresOtherFields() throws Exception {
    FingerprintFunction f = Fingerprints.jsonFields("/amount", "/currency");
    String a = f.fingerprint(payload("{\"amount\":5,\"currency\":\"EUR\",\"sentAt\":1}"), null);
    String b = f.fingerprint(payload("{\"sentAt\":2,\"currency\":\"EUR\",\"amount\":5}"), null);
    String c = f.fingerprint(payload("{\"amount\":6,\"currency\":\"EUR\",\"sentAt\":1}"), null);
    String missing = f.fingerprint(payload("{\"amount\":5}"), null);
    assertThat(a).isEqualTo(b).isNotEqualTo(c).isNotEqualTo(missing);
  }

  @Test
  void jsonFieldsFingerprintFailsOnNonJsonAndNeedsAPointer() {
    assertThatThrownBy(() -> Fingerprints.jsonFields("/a").fingerprint(payload("nope"), null))
        .isInstanceOf(Exception.class);
    assertThatThrownBy(Fingerprints::jsonFields).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void noneDisablesTheCheck() throws Exception {
    assertThat(Fingerprints.none().fingerprint(payload("x"), null)).isNull();
  }
}

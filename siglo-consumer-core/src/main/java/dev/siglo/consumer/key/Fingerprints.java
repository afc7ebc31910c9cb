package dev.siglo.consumer.key;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Factories of {@link FingerprintFunction}s: the SHA-256 of the payload (the default), of named
 * JSON fields, or none.
 */
public final class Fingerprints {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private Fingerprints() {}

  /**
   * @return SHA-256 (hex) of the raw payload bytes
   */
  public static FingerprintFunction payloadSha256() {
    return (m, v) -> Sha256.hex(m.payload());
  }

  /**
   * @return no fingerprint: key reuse with a different payload is not detected
   */
  public static FingerprintFunction none() {
    return (m, v) -> null;
  }

  /**
   * SHA-256 over the named JSON fields of the payload (JSON Pointers), so that fields that differ
   * between honest retries (a send timestamp, a trace id) do not count as a different request.
   *
   * @param pointers JSON Pointers, for example {@code /amount} and {@code /currency}
   * @return the fingerprint function; it fails on a payload that is not JSON
   */
  public static FingerprintFunction jsonFields(String... pointers) {
    if (pointers.length == 0) {
      throw new IllegalArgumentException("jsonFields needs at least one pointer");
    }
    List<JsonPointer> compiled = Arrays.stream(pointers).map(JsonPointer::compile).toList();
    return (m, v) -> {
      JsonNode root = MAPPER.readTree(m.payload());
      StringBuilder sb = new StringBuilder();
      for (JsonPointer p : compiled) {
        JsonNode at = root == null ? null : root.at(p);
        sb.append(p).append('=').append(at == null || at.isMissingNode() ? "<missing>" : at);
        sb.append('\n');
      }
      return Sha256.hex(sb.toString().getBytes(StandardCharsets.UTF_8));
    };
  }
}

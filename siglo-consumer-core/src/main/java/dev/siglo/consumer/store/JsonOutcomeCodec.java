package dev.siglo.consumer.store;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import dev.siglo.consumer.error.OutcomeEncodingException;
import dev.siglo.consumer.error.OutcomeTooLargeException;
import dev.siglo.consumer.error.UnreadableOutcomeException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The default {@link OutcomeCodec}: a small JSON envelope, {@code
 * {"kind":"success","result":"<result JSON text>"}} or {@code
 * {"kind":"declined","errorType":...,"message":...,"attributes":{...}}}, with a size limit (default
 * {@value #DEFAULT_MAX_BYTES} bytes). Thread-safe.
 */
public final class JsonOutcomeCodec implements OutcomeCodec {
  /** The default size limit of an encoded outcome: 64 KiB. */
  public static final int DEFAULT_MAX_BYTES = 64 * 1024;

  private static final JsonFactory FACTORY = new JsonFactory();
  private static final JsonOutcomeCodec DEFAULT = new JsonOutcomeCodec(DEFAULT_MAX_BYTES);

  private final int maxBytes;

  private JsonOutcomeCodec(int maxBytes) {
    this.maxBytes = maxBytes;
  }

  /**
   * @return the codec with the default size limit
   */
  public static JsonOutcomeCodec of() {
    return DEFAULT;
  }

  /**
   * @param maxBytes the size limit of an encoded outcome; at least 256
   * @return a codec with that limit
   */
  public static JsonOutcomeCodec withMaxBytes(int maxBytes) {
    if (maxBytes < 256) {
      throw new IllegalArgumentException("maxBytes must be at least 256, was " + maxBytes);
    }
    return new JsonOutcomeCodec(maxBytes);
  }

  /**
   * @return the size limit in bytes
   */
  public int maxBytes() {
    return maxBytes;
  }

  private static final byte[] SUCCESS_START =
      "{\"kind\":\"success\",\"result\":\"".getBytes(StandardCharsets.UTF_8);
  private static final byte[] SUCCESS_END = "\"}".getBytes(StandardCharsets.UTF_8);

  @Override
  public byte[] encode(Outcome outcome) {
    if (outcome instanceof Outcome.Success s && !hasSurrogates(s.resultJson())) {
      // the envelope of every processed message, without a generator: the same bytes it writes
      // (it escapes characters outside the BMP as \\u pairs, so those take the generator path)
      String json = s.resultJson();
      boolean plain = isPlainAscii(json);
      byte[] quoted = plain ? null : JsonStringEncoder.getInstance().quoteAsUTF8(json);
      int length = plain ? json.length() : quoted.length;
      int size = SUCCESS_START.length + length + SUCCESS_END.length;
      requireWithinLimit(size);
      byte[] out = Arrays.copyOf(SUCCESS_START, size);
      if (plain) {
        for (int i = 0; i < length; i++) {
          out[SUCCESS_START.length + i] = (byte) json.charAt(i); // printable ASCII: one byte each
        }
      } else {
        System.arraycopy(quoted, 0, out, SUCCESS_START.length, length);
      }
      System.arraycopy(SUCCESS_END, 0, out, size - SUCCESS_END.length, SUCCESS_END.length);
      return out;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(128);
    try (JsonGenerator g = FACTORY.createGenerator(out)) {
      g.writeStartObject();
      if (outcome instanceof Outcome.Success s) {
        g.writeStringField("kind", "success");
        g.writeStringField("result", s.resultJson());
      } else if (outcome instanceof Outcome.Declined d) {
        g.writeStringField("kind", "declined");
        g.writeStringField("errorType", d.errorType());
        g.writeStringField("message", d.message());
        g.writeObjectFieldStart("attributes");
        for (Map.Entry<String, String> e : d.attributes().entrySet()) {
          g.writeStringField(e.getKey(), e.getValue());
        }
        g.writeEndObject();
      } else {
        throw new OutcomeEncodingException("unknown outcome type " + outcome.getClass().getName());
      }
      g.writeEndObject();
    } catch (IOException e) {
      throw new OutcomeEncodingException("outcome cannot be encoded as JSON: " + e.getMessage(), e);
    }
    requireWithinLimit(out.size());
    return out.toByteArray();
  }

  /** Printable ASCII without a quote or a backslash: a JSON string's content as it is. */
  private static boolean isPlainAscii(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x20 || c > 0x7E || c == '"' || c == '\\') {
        return false;
      }
    }
    return true;
  }

  private static boolean hasSurrogates(String text) {
    for (int i = 0; i < text.length(); i++) {
      if (Character.isSurrogate(text.charAt(i))) {
        return true;
      }
    }
    return false;
  }

  private void requireWithinLimit(int size) {
    if (size > maxBytes) {
      throw new OutcomeTooLargeException(
          "encoded outcome is " + size + " bytes, over the limit of " + maxBytes + " bytes");
    }
  }

  @Override
  public Outcome decode(byte[] bytes) {
    if (bytes == null) {
      throw new UnreadableOutcomeException("stored outcome is null");
    }
    String kind = null;
    String result = null;
    String errorType = null;
    String message = "";
    Map<String, String> attributes = new LinkedHashMap<>();
    try (JsonParser p = FACTORY.createParser(bytes)) {
      expect(p.nextToken(), JsonToken.START_OBJECT);
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        switch (field) {
          case "kind" -> kind = p.getValueAsString();
          case "result" -> result = p.getValueAsString();
          case "errorType" -> errorType = p.getValueAsString();
          case "message" -> message = p.getValueAsString();
          case "attributes" -> {
            expect(value, JsonToken.START_OBJECT);
            while (p.nextToken() == JsonToken.FIELD_NAME) {
              String name = p.currentName();
              p.nextToken();
              attributes.put(name, p.getValueAsString());
            }
          }
          default -> p.skipChildren();
        }
      }
    } catch (IOException e) {
      throw new UnreadableOutcomeException(
          "stored outcome is not valid JSON: " + e.getMessage(), e);
    }
    if ("success".equals(kind) && result != null) {
      return new Outcome.Success(result);
    }
    if ("declined".equals(kind) && errorType != null) {
      return new Outcome.Declined(errorType, message, attributes);
    }
    throw new UnreadableOutcomeException("stored outcome has no valid kind: " + kind);
  }

  private static void expect(JsonToken actual, JsonToken expected) throws IOException {
    if (actual != expected) {
      throw new IOException("expected " + expected + " but found " + actual);
    }
  }
}

package dev.siglo.consumer.engine;

import dev.siglo.consumer.Message;
import dev.siglo.consumer.MessageSource;
import dev.siglo.consumer.key.Sha256;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.MDC;
import org.slf4j.helpers.NOPMDCAdapter;

/**
 * The SLF4J MDC entries set while a handler and its hooks run, so that the user's own log lines
 * carry the message they belong to: {@value #SYSTEM}, {@value #DESTINATION} (topic or queue),
 * {@value #PARTITION} and {@value #OFFSET} (Kafka), {@value #MESSAGE_ID}, and {@value #KEY} (the
 * first 16 hex digits of the stored key's SHA-256, never the key itself). The entries the thread
 * held before are put back afterwards. With a binding that keeps no MDC (slf4j-simple, the NOP
 * binding) nothing is computed: the key's digest would cost a SHA-256 per message for nothing.
 */
final class HandlerMdc {
  static final String SYSTEM = "siglo.system";
  static final String DESTINATION = "siglo.destination";
  static final String PARTITION = "siglo.partition";
  static final String OFFSET = "siglo.offset";
  static final String MESSAGE_ID = "siglo.message_id";
  static final String KEY = "siglo.key_digest";

  /** Whether the SLF4J binding keeps an MDC; decided once. */
  private static final boolean KEPT = !(MDC.getMDCAdapter() instanceof NOPMDCAdapter);

  private static final HandlerMdc NONE = new HandlerMdc();

  private final Map<String, String> previous = new LinkedHashMap<>();

  private HandlerMdc() {}

  static HandlerMdc of(Message message, String key) {
    if (!KEPT) {
      return NONE;
    }
    HandlerMdc mdc = new HandlerMdc();
    MessageSource source = message.source();
    mdc.put(SYSTEM, source.system());
    mdc.put(DESTINATION, source.destination());
    if (source.partition() >= 0) {
      mdc.put(PARTITION, String.valueOf(source.partition()));
      mdc.put(OFFSET, String.valueOf(source.offset()));
    }
    mdc.put(MESSAGE_ID, message.id());
    if (key != null) {
      mdc.put(KEY, Sha256.hex(key).substring(0, 16));
    }
    return mdc;
  }

  private void put(String name, String value) {
    previous.put(name, MDC.get(name));
    MDC.put(name, value);
  }

  void close() {
    previous.forEach(
        (name, value) -> {
          if (value == null) {
            MDC.remove(name);
          } else {
            MDC.put(name, value);
          }
        });
  }
}

package dev.siglo.launcher;

import dev.siglo.consumer.HandlerContext;
import dev.siglo.consumer.MessageHandler;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** A handler the launcher instantiates by name; it counts effects per idempotency key. */
public final class RecordingHandler implements MessageHandler<String> {
  static final Map<String, AtomicInteger> EFFECTS = new ConcurrentHashMap<>();

  /** Created by the launcher. */
  public RecordingHandler() {}

  @Override
  public Object handle(String value, HandlerContext context) {
    EFFECTS
        .computeIfAbsent(context.idempotencyKey().orElseThrow(), k -> new AtomicInteger())
        .incrementAndGet();
    return value;
  }
}

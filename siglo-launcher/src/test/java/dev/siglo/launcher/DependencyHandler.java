package dev.siglo.launcher;

import dev.siglo.consumer.HandlerContext;
import dev.siglo.consumer.MessageHandler;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A handler whose dependency is down while {@link #BROKEN} holds, and always for payloads that
 * contain {@code stuck}; it counts effects per raw payload.
 */
public final class DependencyHandler implements MessageHandler<String> {
  static final AtomicBoolean BROKEN = new AtomicBoolean();
  static final Map<String, AtomicInteger> EFFECTS = new ConcurrentHashMap<>();

  /** Created by the launcher. */
  public DependencyHandler() {}

  @Override
  public Object handle(String value, HandlerContext context) {
    if (BROKEN.get() || value.contains("stuck")) {
      throw new IllegalStateException("the payment gateway is down");
    }
    EFFECTS.computeIfAbsent(value, k -> new AtomicInteger()).incrementAndGet();
    return null;
  }
}

package dev.siglo.launcher;

import dev.siglo.consumer.AsyncMessageHandler;
import dev.siglo.consumer.HandlerContext;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** An asynchronous handler the launcher instantiates by name; it counts effects per key. */
public final class RecordingAsyncHandler implements AsyncMessageHandler<String> {
  static final Map<String, AtomicInteger> EFFECTS = new ConcurrentHashMap<>();

  /** Created by the launcher. */
  public RecordingAsyncHandler() {}

  @Override
  public CompletionStage<?> handle(String value, HandlerContext context) {
    String key = context.idempotencyKey().orElseThrow();
    return CompletableFuture.supplyAsync(
        () -> EFFECTS.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet());
  }
}

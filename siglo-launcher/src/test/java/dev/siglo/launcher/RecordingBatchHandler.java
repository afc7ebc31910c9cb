package dev.siglo.launcher;

import dev.siglo.consumer.BatchItem;
import dev.siglo.consumer.BatchMessageHandler;
import dev.siglo.consumer.BatchResult;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** A batch handler the launcher instantiates by name; it counts effects per key and batch sizes. */
public final class RecordingBatchHandler implements BatchMessageHandler<String> {
  static final Map<String, AtomicInteger> EFFECTS = new ConcurrentHashMap<>();
  static final List<Integer> BATCH_SIZES = new CopyOnWriteArrayList<>();

  /** Created by the launcher. */
  public RecordingBatchHandler() {}

  @Override
  public BatchResult handle(List<BatchItem<String>> batch) {
    BATCH_SIZES.add(batch.size());
    for (BatchItem<String> item : batch) {
      EFFECTS
          .computeIfAbsent(item.context().idempotencyKey().orElseThrow(), k -> new AtomicInteger())
          .incrementAndGet();
    }
    return BatchResult.allSucceeded();
  }
}

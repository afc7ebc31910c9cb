package dev.siglo.consumer.engine;

import dev.siglo.consumer.BatchItem;
import dev.siglo.consumer.BatchResult;
import java.util.List;

/** Checks on what a batch handler returned. */
final class BatchResults {
  private BatchResults() {}

  /**
   * @throws IllegalStateException when the result reports an item that is not in {@code batch} (a
   *     bug in the handler: its whole batch fails with it, transiently by default)
   */
  static void requireOnlyItemsOf(BatchResult result, List<? extends BatchItem<?>> batch) {
    int reported = 0;
    for (BatchItem<?> item : batch) {
      if (result.reports(item)) {
        reported++;
      }
    }
    if (reported != result.reported()) {
      throw new IllegalStateException(
          "the batch handler's BatchResult reports "
              + (result.reported() - reported)
              + " item(s) that are not in the batch it was given");
    }
  }
}

package dev.siglo.consumer.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CompletionLogTest {
  private final CompletionLog log = new CompletionLog();

  private List<Long> drain() {
    List<Long> out = new ArrayList<>();
    for (CompletionLog.Completion c; (c = log.poll()) != null; ) {
      assertThat(c.key()).isEqualTo("k" + c.sequence());
      out.add(c.sequence());
    }
    return out;
  }

  private void add(long from, long to) {
    for (long i = from; i < to; i++) {
      log.add("k" + i, i);
    }
  }

  @Test
  void keepsInsertionOrderAcrossWrapAroundAndGrowth() {
    add(0, 12);
    for (int i = 0; i < 10; i++) {
      log.poll();
    }
    add(12, 50); // wraps past the end of the first array, then grows it
    assertThat(log.size()).isEqualTo(40);
    assertThat(drain()).containsExactlyElementsOf(range(10, 50));
    assertThat(log.size()).isZero();
  }

  @Test
  void dropsStaleCompletionsUpToTheFirstCurrentOne() {
    add(0, 6);
    log.dropStale((key, sequence) -> sequence < 3 || sequence == 4);
    assertThat(drain()).containsExactly(3L, 4L, 5L);
  }

  @Test
  void clearEmptiesTheLog() {
    add(0, 20);
    log.clear();
    assertThat(log.poll()).isNull();
    add(20, 22);
    assertThat(drain()).containsExactly(20L, 21L);
  }

  private static List<Long> range(long from, long to) {
    List<Long> out = new ArrayList<>();
    for (long i = from; i < to; i++) {
      out.add(i);
    }
    return out;
  }
}

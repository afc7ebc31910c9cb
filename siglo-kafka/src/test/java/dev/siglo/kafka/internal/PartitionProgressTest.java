package dev.siglo.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PartitionProgressTest {
  private static PartitionProgress allCompleted(int records) {
    PartitionProgress p = new PartitionProgress();
    for (long o = 0; o < records; o++) {
      p.received(o);
      p.completed(o);
    }
    return p;
  }

  @Test
  void theCommitPointStopsAtTheLowestIncompleteOffset() {
    PartitionProgress p = new PartitionProgress();
    for (long o = 0; o < 5; o++) {
      p.received(o);
    }
    p.completed(0);
    p.completed(2);
    assertThat(p.commitPoint()).isEqualTo(1);
    p.completed(1);
    assertThat(p.commitPoint()).isEqualTo(3);
  }

  @Test
  void completionsInAnyOrderOverManyRecordsMatchASortedSetOfTheIncompleteOnes() {
    PartitionProgress p = new PartitionProgress();
    java.util.TreeSet<Long> incomplete = new java.util.TreeSet<>();
    java.util.Random random = new java.util.Random(7);
    long next = 0;
    for (int step = 0; step < 200_000; step++) {
      int action = random.nextInt(10);
      if (action < 4 || incomplete.isEmpty()) {
        long offset = next;
        next += 1 + random.nextInt(3); // compacted topics and markers leave gaps
        p.received(offset);
        incomplete.add(offset);
      } else if (action < 9) {
        Long any = incomplete.ceiling(incomplete.first() + random.nextInt(50));
        long offset = any == null ? incomplete.last() : any;
        p.completed(offset);
        incomplete.remove(offset);
      } else {
        // fetched again after a seek: an offset below the highest, complete or not
        long offset = Math.max(0, next - 1 - random.nextInt(20));
        if (!p.isIncomplete(offset)) {
          p.received(offset);
          incomplete.add(offset);
        }
      }
      assertThat(p.pending()).isEqualTo(incomplete.size());
      long expected = incomplete.isEmpty() ? -2 : incomplete.first();
      if (expected != -2) {
        assertThat(p.commitPoint()).isEqualTo(expected);
      }
    }
  }

  @Test
  void aFailedCommitIsSentAgainEvenWhenNothingNewCompleted() {
    PartitionProgress p = allCompleted(10);
    assertThat(p.uncommitted()).isEqualTo(10);
    p.markCommitted(10);
    assertThat(p.uncommitted()).as("sent, awaiting the broker").isEqualTo(-1);

    p.commitFailed(10);

    assertThat(p.uncommitted()).as("the broker never took it: send it again").isEqualTo(10);
  }

  @Test
  void aFailureOfAnOlderCommitDoesNotUndoANewerOne() {
    PartitionProgress p = allCompleted(10);
    p.markCommitted(5);
    p.markCommitted(10);

    p.commitFailed(5);

    assertThat(p.uncommitted()).isEqualTo(-1);
  }
}

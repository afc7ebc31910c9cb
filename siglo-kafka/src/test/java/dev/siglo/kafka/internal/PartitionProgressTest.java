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

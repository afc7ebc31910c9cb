package dev.siglo.sqs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.siglo.consumer.support.Time;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * The visibility heartbeat at the defaults a user gets (visibility 30 s, fraction 0.5) on injected
 * time: minutes of a long handler checked without waiting.
 */
class HeartbeatTest {
  private static final Duration VISIBILITY = Duration.ofSeconds(30);

  private final AtomicLong now = new AtomicLong();
  private final Time time =
      new Time() {
        @Override
        public long nanoTime() {
          return now.get();
        }

        @Override
        public void sleep(Duration duration) {
          throw new AssertionError("the heartbeat never sleeps");
        }
      };
  private final List<String> extensions = new CopyOnWriteArrayList<>();
  private final SqsRuntimeConfig settings =
      new SqsRuntimeConfig(
          "http://127.0.0.1/q",
          false,
          1,
          16,
          64,
          Duration.ofSeconds(20),
          VISIBILITY,
          0.5,
          Duration.ofMillis(100),
          null,
          false,
          null,
          dev.siglo.consumer.WorkerThreads.platform(),
          dev.siglo.consumer.engine.Batching.NONE);
  private final Heartbeat heartbeat =
      new Heartbeat(
          (m, visibility) -> extensions.add(m.messageId() + "/" + visibility), settings, time);

  private static Message message(String id) {
    return Message.builder().messageId(id).receiptHandle("rh-" + id).build();
  }

  private void advanceAndBeat(Duration d) {
    now.addAndGet(d.toNanos());
    heartbeat.beat();
  }

  @Test
  void aHandlerRunningThreeVisibilityTimeoutsIsExtendedEveryHalfTimeout() {
    heartbeat.start(message("m-1"));
    Duration tick = heartbeat.tick();

    for (Duration run = Duration.ZERO;
        run.compareTo(VISIBILITY.multipliedBy(3)) < 0;
        run = run.plus(tick)) {
      advanceAndBeat(tick);
    }

    assertThat(tick).isEqualTo(Duration.ofMillis(7_500));
    assertThat(extensions).hasSize(6).containsOnly("m-1/" + VISIBILITY);
  }

  @Test
  void nothingIsExtendedBeforeHalfTheVisibilityTimeout() {
    heartbeat.start(message("m-1"));

    advanceAndBeat(VISIBILITY.dividedBy(2).minusNanos(1));

    assertThat(extensions).isEmpty();
    advanceAndBeat(Duration.ofNanos(1));
    assertThat(extensions).containsExactly("m-1/" + VISIBILITY);
  }

  @Test
  void aFinishedMessageIsNoLongerExtended() {
    Message m = message("m-1");
    heartbeat.start(m);
    heartbeat.stop(m);

    advanceAndBeat(VISIBILITY);

    assertThat(extensions).isEmpty();
  }

  @Test
  void aFailedExtensionOfOneMessageDoesNotStopTheOthers() {
    Heartbeat failing =
        new Heartbeat(
            (m, visibility) -> {
              if (m.messageId().equals("m-bad")) {
                throw new IllegalStateException("receipt handle expired");
              }
              extensions.add(m.messageId() + "/" + visibility);
            },
            settings,
            time);
    failing.start(message("m-bad"));
    failing.start(message("m-good"));

    now.addAndGet(VISIBILITY.toNanos());
    failing.beat();

    assertThat(extensions).containsExactly("m-good/" + VISIBILITY);
  }
}

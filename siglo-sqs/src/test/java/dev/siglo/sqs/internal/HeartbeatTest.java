package dev.siglo.sqs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.siglo.consumer.IdempotencyConfig;
import dev.siglo.consumer.store.ClaimToken;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.consumer.support.Time;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * The visibility heartbeat at the defaults a user gets (visibility 30 s, fraction 0.5, lease 2 min)
 * on injected time: minutes of a long handler checked without waiting.
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
  private final List<String> renewals = new CopyOnWriteArrayList<>();
  private final IdempotencyStore store =
      (IdempotencyStore)
          Proxy.newProxyInstance(
              IdempotencyStore.class.getClassLoader(),
              new Class<?>[] {IdempotencyStore.class},
              (proxy, method, args) -> {
                if (method.getName().equals("renewLease")) {
                  renewals.add(args[0] + "/" + args[1] + "/" + args[2]);
                  return Instant.EPOCH;
                }
                throw new AssertionError("unexpected store call " + method.getName());
              });
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
          IdempotencyConfig.DEFAULT_LEASE,
          Duration.ofMillis(100),
          null,
          false,
          null);
  private final Heartbeat heartbeat =
      new Heartbeat(
          (m, visibility) -> extensions.add(m.messageId() + "/" + visibility),
          store,
          settings,
          time);

  private static Message message(String id) {
    return Message.builder().messageId(id).receiptHandle("rh-" + id).build();
  }

  private void advanceAndBeat(Duration d) {
    now.addAndGet(d.toNanos());
    heartbeat.beat();
  }

  @Test
  void aHandlerRunningThreeVisibilityTimeoutsIsExtendedEveryHalfTimeoutWithItsLeaseRenewed() {
    Heartbeat.Running r = heartbeat.start(message("m-1"));
    r.key = "ff:idemp:_:_:order-1";
    r.token = new ClaimToken("t-1");
    Duration tick = heartbeat.tick();

    for (Duration run = Duration.ZERO;
        run.compareTo(VISIBILITY.multipliedBy(3)) < 0;
        run = run.plus(tick)) {
      advanceAndBeat(tick);
    }

    assertThat(tick).isEqualTo(Duration.ofMillis(7_500));
    assertThat(extensions).hasSize(6).containsOnly("m-1/" + VISIBILITY);
    assertThat(renewals)
        .hasSize(6)
        .containsOnly("ff:idemp:_:_:order-1/t-1/" + IdempotencyConfig.DEFAULT_LEASE);
  }

  @Test
  void nothingIsExtendedBeforeHalfTheVisibilityTimeout() {
    heartbeat.start(message("m-1"));

    advanceAndBeat(VISIBILITY.dividedBy(2).minusNanos(1));

    assertThat(extensions).isEmpty();
    advanceAndBeat(Duration.ofNanos(1));
    assertThat(extensions).containsExactly("m-1/" + VISIBILITY);
    assertThat(renewals).as("no claim yet, no renewal").isEmpty();
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
            store,
            settings,
            time);
    failing.start(message("m-bad"));
    failing.start(message("m-good"));

    now.addAndGet(VISIBILITY.toNanos());
    failing.beat();

    assertThat(extensions).containsExactly("m-good/" + VISIBILITY);
  }
}

package dev.siglo.faults;

import dev.siglo.consumer.event.SigloEvent;
import dev.siglo.consumer.event.SigloEventListener;
import dev.siglo.consumer.metrics.SigloMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Writes each pause of the consumer's intake to the {@code pauses} table once it resumes: when it
 * paused and resumed, and how many idempotency-store calls the consumer made in between (read from
 * Siglo's own {@code siglo.store} timers), so the checker can report how hard a paused consumer
 * still works its unavailable store. Rows are written off the event thread, retrying while the
 * database is down.
 */
final class PauseRecorder implements SigloEventListener {
  private final Effects effects;
  private final String scenario;
  private final MeterRegistry registry;
  private final ExecutorService writer =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "faults-pauses");
            t.setDaemon(true);
            return t;
          });
  private Instant pausedAt;
  private long callsAtPause;

  PauseRecorder(Effects effects, String scenario, MeterRegistry registry) {
    this.effects = effects;
    this.scenario = scenario;
    this.registry = registry;
  }

  @Override
  public synchronized void onEvent(SigloEvent event) {
    if (event instanceof SigloEvent.Paused && pausedAt == null) {
      pausedAt = Instant.now();
      callsAtPause = storeCalls();
    } else if (event instanceof SigloEvent.Resumed && pausedAt != null) {
      Effects.Pause pause = new Effects.Pause(pausedAt, Instant.now(), storeCalls() - callsAtPause);
      pausedAt = null;
      writer.execute(
          () -> Effects.retrying("record a pause", () -> effects.paused(scenario, pause)));
    }
  }

  private long storeCalls() {
    return registry.find(SigloMetrics.STORE).timers().stream().mapToLong(Timer::count).sum();
  }
}

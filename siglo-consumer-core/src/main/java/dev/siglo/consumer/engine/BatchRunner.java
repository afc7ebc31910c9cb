package dev.siglo.consumer.engine;

import dev.siglo.consumer.BatchMessageHandler;
import dev.siglo.consumer.DeadLetterReason;
import dev.siglo.consumer.IdempotencyConfig;
import dev.siglo.consumer.Message;
import dev.siglo.consumer.error.CrashLoopException;
import dev.siglo.consumer.error.IdempotencyKeyReuseException;
import dev.siglo.consumer.store.BatchClaimResult;
import dev.siglo.consumer.store.ClaimRequest;
import dev.siglo.consumer.store.ClaimResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The engine's path for a {@link BatchMessageHandler}: the same lifecycle as one message's, for
 * many at once. Each attempt decodes and resolves the messages not resolved yet, claims their keys
 * in one {@code claimAll}, replays the completed ones, and has the claimed ones (and those
 * processed without a key) handled by one {@link BatchCall}: the handler once, then the successes
 * recorded in one {@code completeAll}, each failure classified exactly as a one-message handler's
 * is. Keys in progress elsewhere, and a key's second message in one batch, are settled afterwards:
 * their keys are claimed again, all together, after polls that double up to the poll interval,
 * until the settle timeout. A message whose claim was just taken over from a dead holder runs alone
 * afterwards ({@link Isolation#runAlone}). The messages that failed transiently are retried in
 * process together after the backoff; the rest of the decision ({@link Verdicts#afterFailure}) is
 * the one-message path's. Stateless between calls and thread-safe.
 *
 * @param <T> the decoded payload type
 */
final class BatchRunner<T> {
  private final DefaultMessageProcessor<T> engine;
  private final MessageProcessorConfig<T> config;
  private final BatchCall<T> call;
  private final IdempotentInvoker invoker;
  private final Preparer<T> preparer;
  private final Verdicts verdicts;
  private final IdempotencyConfig options;

  BatchRunner(
      DefaultMessageProcessor<T> engine,
      MessageProcessorConfig<T> config,
      IdempotentInvoker invoker,
      Preparer<T> preparer,
      Verdicts verdicts) {
    this.engine = engine;
    this.config = config;
    this.call = new BatchCall<>(engine, config, invoker, verdicts);
    this.invoker = invoker;
    this.preparer = preparer;
    this.verdicts = verdicts;
    this.options = config.idempotency();
  }

  /**
   * @return one disposition per message, in order
   */
  List<Disposition> process(List<Message> messages) {
    List<BatchEntry<T>> items = new ArrayList<>(messages.size());
    for (Message m : messages) {
      items.add(new BatchEntry<>(m, new MessageBudget(m, config.retry(), config.classifier())));
    }
    for (int attempt = 1; ; attempt++) {
      List<BatchEntry<T>> active = new ArrayList<>();
      for (BatchEntry<T> i : items) {
        if (i.disposition == null) {
          i.failure = null;
          active.add(i);
        }
      }
      if (active.isEmpty()) {
        break;
      }
      runAttempt(active, attempt);
      List<BatchEntry<T>> again = new ArrayList<>();
      for (BatchEntry<T> i : active) {
        if (i.disposition == null) {
          if (i.failure == null) {
            throw new IllegalStateException(i.message + " ended its attempt without an answer");
          }
          Disposition verdict =
              verdicts.afterFailure(i.message, i.key(), i.failure, attempt, i.budget::deliveries);
          if (verdict != null) {
            i.disposition = verdict;
          } else {
            again.add(i);
          }
        }
      }
      if (!again.isEmpty() && !backOff(again, attempt)) {
        break;
      }
    }
    List<Disposition> out = new ArrayList<>(items.size());
    for (BatchEntry<T> i : items) {
      out.add(i.disposition);
    }
    return out;
  }

  /**
   * Sleeps the backoff before the next attempt of {@code again}.
   *
   * @return false when interrupted: they are nacked
   */
  private boolean backOff(List<BatchEntry<T>> again, int attempt) {
    long start = config.time().nanoTime();
    try {
      config.time().sleep(engine.retryBackoff(attempt));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      for (BatchEntry<T> i : again) {
        i.disposition = verdicts.interrupted(i.message, i.key(), i.failure, attempt);
      }
      return false;
    }
    Duration waited = Duration.ofNanos(config.time().nanoTime() - start);
    for (BatchEntry<T> i : again) {
      verdicts.retried(i.message, i.key(), attempt, i.failure, waited);
    }
    return true;
  }

  /** One attempt of the active messages: beside other work, then its suspects alone. */
  private void runAttempt(List<BatchEntry<T>> active, int attempt) {
    List<BatchEntry<T>> suspects = new ArrayList<>();
    try {
      engine.isolation().run(() -> runRounds(active, attempt, suspects));
    } catch (Exception e) {
      BatchEntry.failOpen(active, e);
      return;
    }
    for (BatchEntry<T> suspect : suspects) {
      try {
        engine.isolation().runAlone(() -> runRounds(List.of(suspect), attempt, new ArrayList<>()));
      } catch (Exception e) {
        BatchEntry.failOpen(List.of(suspect), e);
      }
    }
  }

  /**
   * Claims, runs and completes; then settles what was in progress, claiming it again until it is
   * completed, claimed (and run) or the settle timeout passed.
   */
  private Void runRounds(List<BatchEntry<T>> items, int attempt, List<BatchEntry<T>> suspects) {
    List<BatchEntry<T>> pending = new ArrayList<>();
    List<BatchEntry<T>> toRun = new ArrayList<>();
    for (BatchEntry<T> i : items) {
      i.budget.attempt(attempt);
      if (prepare(i)) {
        (i.resolved instanceof Preparer.Keyed ? pending : toRun).add(i);
      }
    }
    long settleStart = 0;
    long pollNanos = Math.min(IdempotentInvoker.FIRST_POLL_NANOS, options.pollInterval().toNanos());
    while (true) {
      List<BatchEntry<T>> inProgress = claim(pending, toRun, suspects, attempt);
      if (!toRun.isEmpty()) {
        call.run(toRun, attempt);
        toRun = new ArrayList<>();
      }
      if (inProgress.isEmpty()) {
        return null;
      }
      if (settleStart == 0) {
        settleStart = config.time().nanoTime();
      }
      long remaining = options.settleTimeout().toNanos() - (config.time().nanoTime() - settleStart);
      boolean settling = remaining > 0;
      if (settling) {
        try {
          config.time().sleep(Duration.ofNanos(Math.min(pollNanos, remaining)));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          settling = false;
        }
      }
      if (!settling) {
        Duration waited = Duration.ofNanos(config.time().nanoTime() - settleStart);
        for (BatchEntry<T> i : inProgress) {
          i.failure = IdempotentInvoker.conflict(i.request, waited);
        }
        return null;
      }
      pollNanos = Math.min(options.pollInterval().toNanos(), pollNanos * 2);
      pending = inProgress;
    }
  }

  /**
   * Decodes and resolves a message not resolved yet.
   *
   * @return whether it goes on to its claim (else it has its answer or its failure)
   */
  private boolean prepare(BatchEntry<T> i) {
    if (i.resolved != null) {
      return true;
    }
    if (!i.decoded) {
      try {
        i.value = config.decoder().decode(i.message);
        i.decoded = true;
      } catch (Exception e) {
        if (preparer.isTransientDecodeFailure(e)) {
          i.failure = e;
        } else {
          i.disposition = preparer.poison(i.message, e);
        }
        return false;
      }
    }
    Preparer.Resolved r = preparer.resolve(i.message, i.value);
    if (r instanceof Preparer.Rejected rejected) {
      i.disposition = rejected.disposition();
      return false;
    }
    i.resolved = r;
    return true;
  }

  /**
   * Claims the keys of {@code pending} in one call: claimed ones join {@code toRun}, completed ones
   * get their replay, suspects (taken over from a dead holder) wait to run alone.
   *
   * @return the messages to settle: in progress elsewhere, or a key's later message in this batch
   */
  private List<BatchEntry<T>> claim(
      List<BatchEntry<T>> pending,
      List<BatchEntry<T>> toRun,
      List<BatchEntry<T>> suspects,
      int attempt) {
    List<BatchEntry<T>> inProgress = new ArrayList<>();
    List<BatchEntry<T>> claimants = new ArrayList<>(pending.size());
    List<ClaimRequest> requests = new ArrayList<>(pending.size());
    Set<String> keys = new HashSet<>();
    for (BatchEntry<T> i : pending) {
      Preparer.Keyed k = (Preparer.Keyed) i.resolved;
      i.request =
          new ClaimRequest(k.key(), k.fingerprint(), options.lease(), i.budget.newDelivery());
      if (!keys.add(k.key())) {
        i.waited = true; // the key's first message of this batch claims it; this one settles
        inProgress.add(i);
      } else {
        claimants.add(i);
        requests.add(i.request);
      }
    }
    if (claimants.isEmpty()) {
      return inProgress;
    }
    List<BatchClaimResult> answers;
    try {
      answers = invoker.claimAll(requests);
    } catch (RuntimeException e) {
      BatchEntry.failOpen(pending, e);
      return List.of();
    }
    for (int n = 0; n < claimants.size(); n++) {
      BatchEntry<T> i = claimants.get(n);
      BatchClaimResult answer = answers.get(n);
      if (answer.failure() != null) {
        claimFailed(i, answer.failure(), attempt);
      } else if (answer.result() instanceof ClaimResult.InProgress) {
        i.waited = true;
        inProgress.add(i);
      } else if (answer.result() instanceof ClaimResult.Completed completed) {
        i.disposition =
            verdicts.of(
                i.message, i.key(), new Invocation.Replayed<>(completed.outcome(), i.waited), 0);
      } else {
        admit(i, (ClaimResult.Claimed) answer.result(), toRun, suspects, attempt);
      }
    }
    return inProgress;
  }

  private void claimFailed(BatchEntry<T> i, RuntimeException failure, int attempt) {
    if (failure instanceof IdempotencyKeyReuseException reuse) {
      i.disposition =
          verdicts.deadLetter(i.message, i.key(), DeadLetterReason.KEY_REUSE, reuse, attempt);
    } else {
      i.failure = failure; // an invalid key is permanent: dead-lettered as unprocessable
    }
  }

  private void admit(
      BatchEntry<T> i,
      ClaimResult.Claimed claim,
      List<BatchEntry<T>> toRun,
      List<BatchEntry<T>> suspects,
      int attempt) {
    try {
      invoker.admit(i.key(), claim, i.budget, options);
      i.claim = claim;
      toRun.add(i);
    } catch (Isolation.RunAlone suspect) {
      suspects.add(i);
    } catch (CrashLoopException e) {
      i.disposition =
          verdicts.deadLetter(i.message, i.key(), DeadLetterReason.CRASH_LOOP, e, attempt);
    } catch (RuntimeException e) {
      i.failure = e;
    }
  }
}

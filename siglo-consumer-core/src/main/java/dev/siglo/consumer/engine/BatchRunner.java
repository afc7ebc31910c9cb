package dev.siglo.consumer.engine;

import dev.siglo.consumer.BatchItem;
import dev.siglo.consumer.BatchMessageHandler;
import dev.siglo.consumer.BatchResult;
import dev.siglo.consumer.DeadLetterReason;
import dev.siglo.consumer.IdempotencyConfig;
import dev.siglo.consumer.Message;
import dev.siglo.consumer.MessageHook;
import dev.siglo.consumer.classify.Classification;
import dev.siglo.consumer.classify.ErrorClass;
import dev.siglo.consumer.error.CrashLoopException;
import dev.siglo.consumer.error.IdempotencyKeyReuseException;
import dev.siglo.consumer.error.IdempotencyLeaseLostException;
import dev.siglo.consumer.error.OutcomeEncodingException;
import dev.siglo.consumer.error.OutcomeTooLargeException;
import dev.siglo.consumer.spi.Declines;
import dev.siglo.consumer.store.BatchClaimResult;
import dev.siglo.consumer.store.BatchCompleteResult;
import dev.siglo.consumer.store.ClaimRequest;
import dev.siglo.consumer.store.ClaimResult;
import dev.siglo.consumer.store.CompleteRequest;
import dev.siglo.consumer.store.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The engine's path for a {@link BatchMessageHandler}: the same lifecycle as one message's, for
 * many at once. Each attempt decodes and resolves the messages not resolved yet, claims their keys
 * in one {@code claimAll}, replays the completed ones, runs the handler once over the claimed ones
 * (and those processed without a key), then records the successes in one {@code completeAll}; a
 * failure (reported for one message, or thrown for the whole batch) is classified per message
 * exactly as a one-message handler's is ({@link IdempotentInvoker#onFailure}). Keys in progress
 * elsewhere, and a key's second message in one batch, are settled afterwards: their keys are
 * claimed again, all together, after polls that double up to the poll interval, until the settle
 * timeout. A message whose claim was just taken over from a dead holder runs alone afterwards
 * ({@link Isolation#runAlone}). The messages that failed transiently are retried in process
 * together after the backoff; the rest of the decision ({@link Verdicts#afterFailure}) is the
 * one-message path's. Stateless between calls and thread-safe.
 *
 * @param <T> the decoded payload type
 */
final class BatchRunner<T> {
  private final DefaultMessageProcessor<T> engine;
  private final MessageProcessorConfig<T> config;
  private final BatchMessageHandler<T> handler;
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
    this.handler = config.batchHandler();
    this.invoker = invoker;
    this.preparer = preparer;
    this.verdicts = verdicts;
    this.options = config.idempotency();
  }

  /** One message of the batch and where it stands. */
  private static final class Item<T> {
    final Message message;
    final MessageBudget budget;
    T value;
    boolean decoded;
    Preparer.Resolved resolved;
    ClaimRequest request;
    ClaimResult.Claimed claim;
    boolean waited;

    /** Its final answer, once it has one. */
    Disposition disposition;

    /** Its transient failure in the current attempt. */
    Exception failure;

    Item(Message message, MessageBudget budget) {
      this.message = message;
      this.budget = budget;
    }

    String key() {
      return resolved instanceof Preparer.Keyed k ? k.key() : null;
    }

    boolean open() {
      return disposition == null && failure == null;
    }
  }

  /**
   * @return one disposition per message, in order
   */
  List<Disposition> process(List<Message> messages) {
    List<Item<T>> items = new ArrayList<>(messages.size());
    for (Message m : messages) {
      items.add(new Item<>(m, new MessageBudget(m, config.retry(), config.classifier())));
    }
    for (int attempt = 1; ; attempt++) {
      List<Item<T>> active = new ArrayList<>();
      for (Item<T> i : items) {
        if (i.disposition == null) {
          i.failure = null;
          active.add(i);
        }
      }
      if (active.isEmpty()) {
        break;
      }
      runAttempt(active, attempt);
      List<Item<T>> again = new ArrayList<>();
      for (Item<T> i : active) {
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
    for (Item<T> i : items) {
      out.add(i.disposition);
    }
    return out;
  }

  /**
   * Sleeps the backoff before the next attempt of {@code again}.
   *
   * @return false when interrupted: they are nacked
   */
  private boolean backOff(List<Item<T>> again, int attempt) {
    long start = config.time().nanoTime();
    try {
      config.time().sleep(engine.retryBackoff(attempt));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      for (Item<T> i : again) {
        i.disposition = verdicts.interrupted(i.message, i.key(), i.failure, attempt);
      }
      return false;
    }
    Duration waited = Duration.ofNanos(config.time().nanoTime() - start);
    for (Item<T> i : again) {
      verdicts.retried(i.message, i.key(), attempt, i.failure, waited);
    }
    return true;
  }

  /** One attempt of the active messages: beside other work, then its suspects alone. */
  private void runAttempt(List<Item<T>> active, int attempt) {
    List<Item<T>> suspects = new ArrayList<>();
    try {
      engine.isolation().run(() -> runRounds(active, attempt, suspects));
    } catch (Exception e) {
      failOpen(active, e);
      return;
    }
    for (Item<T> suspect : suspects) {
      try {
        engine.isolation().runAlone(() -> runRounds(List.of(suspect), attempt, new ArrayList<>()));
      } catch (Exception e) {
        failOpen(List.of(suspect), e);
      }
    }
  }

  private void failOpen(List<Item<T>> items, Exception e) {
    if (e instanceof InterruptedException) {
      Thread.currentThread().interrupt();
    }
    for (Item<T> i : items) {
      if (i.open()) {
        i.failure = e;
      }
    }
  }

  /**
   * Claims, runs and completes; then settles what was in progress, claiming it again until it is
   * completed, claimed (and run) or the settle timeout passed.
   */
  private Void runRounds(List<Item<T>> items, int attempt, List<Item<T>> suspects) {
    List<Item<T>> pending = new ArrayList<>();
    List<Item<T>> toRun = new ArrayList<>();
    for (Item<T> i : items) {
      i.budget.attempt(attempt);
      if (prepare(i)) {
        (i.resolved instanceof Preparer.Keyed ? pending : toRun).add(i);
      }
    }
    long settleStart = 0;
    long pollNanos = Math.min(IdempotentInvoker.FIRST_POLL_NANOS, options.pollInterval().toNanos());
    while (true) {
      List<Item<T>> inProgress = claim(pending, toRun, suspects, attempt);
      if (!toRun.isEmpty()) {
        run(toRun, attempt);
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
        for (Item<T> i : inProgress) {
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
  private boolean prepare(Item<T> i) {
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
  private List<Item<T>> claim(
      List<Item<T>> pending, List<Item<T>> toRun, List<Item<T>> suspects, int attempt) {
    List<Item<T>> inProgress = new ArrayList<>();
    List<Item<T>> claimants = new ArrayList<>(pending.size());
    List<ClaimRequest> requests = new ArrayList<>(pending.size());
    Set<String> keys = new HashSet<>();
    for (Item<T> i : pending) {
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
      failOpen(pending, e);
      return List.of();
    }
    for (int n = 0; n < claimants.size(); n++) {
      Item<T> i = claimants.get(n);
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

  private void claimFailed(Item<T> i, RuntimeException failure, int attempt) {
    if (failure instanceof IdempotencyKeyReuseException reuse) {
      i.disposition =
          verdicts.deadLetter(i.message, i.key(), DeadLetterReason.KEY_REUSE, reuse, attempt);
    } else {
      i.failure = failure; // an invalid key is permanent: dead-lettered as unprocessable
    }
  }

  private void admit(
      Item<T> i,
      ClaimResult.Claimed claim,
      List<Item<T>> toRun,
      List<Item<T>> suspects,
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

  /** Runs the handler over {@code toRun} (claims held and renewed), then records each outcome. */
  private void run(List<Item<T>> toRun, int attempt) {
    List<LeaseKeeper.Held> held = new ArrayList<>(toRun.size());
    try {
      for (Item<T> i : toRun) {
        if (i.claim != null) {
          held.add(engine.leases().hold(i.message, i.key(), i.claim.token(), options.lease()));
        }
      }
      List<BatchItem<T>> batch = new ArrayList<>(toRun.size());
      List<DefaultHandlerContext> contexts = new ArrayList<>(toRun.size());
      for (Item<T> i : toRun) {
        DefaultHandlerContext context =
            engine.context(i.message, i.key(), i.claim == null ? null : i.claim.token(), attempt);
        contexts.add(context);
        batch.add(BatchItem.of(i.value, context));
      }
      long start = System.nanoTime();
      BatchResult result = null;
      Exception whole = null;
      Tracing.Span span = config.tracing().handler(attempt);
      try {
        result = handler.handle(Collections.unmodifiableList(batch));
        if (result == null) {
          result = BatchResult.allSucceeded();
        }
        BatchResults.requireOnlyItemsOf(result, batch);
      } catch (Exception e) {
        whole = e;
        span.fail(e);
      } catch (Error e) {
        span.fail(e);
        for (Item<T> i : toRun) {
          if (i.claim != null) {
            invoker.release(i.key(), i.claim.token());
          }
        }
        throw e;
      } finally {
        contexts.forEach(DefaultHandlerContext::close);
        span.close();
      }
      settle(toRun, batch, result, whole, System.nanoTime() - start);
    } finally {
      held.forEach(engine.leases()::release);
    }
  }

  /** Each message's outcome: hooks, then the successes recorded together, the failures alone. */
  private void settle(
      List<Item<T>> toRun,
      List<BatchItem<T>> batch,
      BatchResult result,
      Exception whole,
      long nanos) {
    List<Item<T>> succeeded = new ArrayList<>();
    List<Object> values = new ArrayList<>();
    List<CompleteRequest> completions = new ArrayList<>();
    for (int n = 0; n < toRun.size(); n++) {
      Item<T> i = toRun.get(n);
      Exception failure = whole;
      Object value = null;
      if (failure == null) {
        BatchResult.ItemResult r = result.resultOf(batch.get(n));
        if (r instanceof BatchResult.ItemResult.Failure f) {
          failure = f.cause();
        } else {
          value = ((BatchResult.ItemResult.Success) r).value();
          failure = afterHooks(i.message, value);
        }
      }
      Outcome.Success success = null;
      if (failure == null) {
        try {
          success = new Outcome.Success(engine.results().encode(value));
        } catch (OutcomeEncodingException e) {
          failure = e;
        }
      }
      if (failure != null) {
        fail(i, failure, nanos);
      } else if (i.claim == null) {
        i.disposition =
            verdicts.of(i.message, null, new Invocation.Executed<>(value, success), nanos);
      } else {
        succeeded.add(i);
        values.add(value);
        completions.add(new CompleteRequest(i.key(), i.claim.token(), success, options.ttl()));
      }
    }
    if (!completions.isEmpty()) {
      complete(succeeded, values, completions, nanos);
    }
  }

  /**
   * @return the first hook failure, or {@code null} when every hook passed
   */
  private Exception afterHooks(Message message, Object value) {
    try {
      for (MessageHook hook : config.hooks()) {
        hook.after(message, value);
      }
      return null;
    } catch (Exception e) {
      return e;
    }
  }

  /** A message's failure, classified as the one-message path classifies a handler's. */
  private void fail(Item<T> i, Exception failure, long nanos) {
    if (i.claim == null) {
      Classification c = config.classifier().classifyDetailed(failure);
      if (c.errorClass() == ErrorClass.PERMANENT) {
        i.disposition =
            verdicts.of(
                i.message, null, new Invocation.DeclinedNow<>(Declines.of(c), failure), nanos);
      } else {
        i.failure = failure;
      }
      return;
    }
    try {
      Invocation<Object> inv =
          invoker.onFailure(
              i.request, i.claim.token(), options, config.classifier(), i.budget, failure);
      i.disposition = verdicts.of(i.message, i.key(), inv, nanos);
    } catch (Exception transientFailure) {
      i.failure = transientFailure;
    }
  }

  private void complete(
      List<Item<T>> succeeded, List<Object> values, List<CompleteRequest> requests, long nanos) {
    List<BatchCompleteResult> answers;
    try {
      answers = invoker.completeAllRetrying(requests);
    } catch (RuntimeException interrupted) {
      failOpen(succeeded, interrupted); // the claims expire with their leases
      return;
    }
    for (int n = 0; n < succeeded.size(); n++) {
      Item<T> i = succeeded.get(n);
      Outcome.Success success = (Outcome.Success) requests.get(n).outcome();
      RuntimeException failure = answers.get(n).failure();
      if (failure == null) {
        i.disposition =
            verdicts.of(
                i.message, i.key(), new Invocation.Executed<>(values.get(n), success), nanos);
      } else if (failure instanceof OutcomeTooLargeException tooLarge) {
        fail(i, tooLarge, nanos);
      } else if (failure instanceof IdempotencyLeaseLostException) {
        try {
          // taken over while the batch ran: settles on the new holder, as one message would
          Outcome other = invoker.record(i.request, i.claim.token(), success, options);
          Invocation<Object> inv =
              other == null
                  ? new Invocation.Executed<>(values.get(n), success)
                  : new Invocation.Replayed<>(other, true);
          i.disposition = verdicts.of(i.message, i.key(), inv, nanos);
        } catch (RuntimeException e) {
          i.failure = e;
        }
      } else {
        i.failure = failure;
      }
    }
  }
}

package dev.siglo.consumer.engine;

import dev.siglo.consumer.BatchItem;
import dev.siglo.consumer.BatchMessageHandler;
import dev.siglo.consumer.BatchResult;
import dev.siglo.consumer.IdempotencyConfig;
import dev.siglo.consumer.Message;
import dev.siglo.consumer.MessageHook;
import dev.siglo.consumer.classify.Classification;
import dev.siglo.consumer.classify.ErrorClass;
import dev.siglo.consumer.error.IdempotencyLeaseLostException;
import dev.siglo.consumer.error.OutcomeEncodingException;
import dev.siglo.consumer.error.OutcomeTooLargeException;
import dev.siglo.consumer.spi.Declines;
import dev.siglo.consumer.store.BatchCompleteResult;
import dev.siglo.consumer.store.CompleteRequest;
import dev.siglo.consumer.store.Outcome;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One call of a {@link BatchMessageHandler} and what follows it: the claimed messages' leases held
 * (and renewed) while the handler runs, then per message its hooks and its outcome: the successes
 * recorded together in one {@code completeAll} (retried while the store is unavailable, a lost
 * lease settling on the new holder as in the one-message path), each failure classified and
 * recorded or released by {@link IdempotentInvoker#onFailure}. Stateless between calls and
 * thread-safe.
 *
 * @param <T> the decoded payload type
 */
final class BatchCall<T> {
  private final DefaultMessageProcessor<T> engine;
  private final MessageProcessorConfig<T> config;
  private final BatchMessageHandler<T> handler;
  private final IdempotentInvoker invoker;
  private final Verdicts verdicts;
  private final IdempotencyConfig options;

  BatchCall(
      DefaultMessageProcessor<T> engine,
      MessageProcessorConfig<T> config,
      IdempotentInvoker invoker,
      Verdicts verdicts) {
    this.engine = engine;
    this.config = config;
    this.handler = config.batchHandler();
    this.invoker = invoker;
    this.verdicts = verdicts;
    this.options = config.idempotency();
  }

  /** Runs the handler over {@code toRun} (claims held and renewed), then records each outcome. */
  void run(List<BatchEntry<T>> toRun, int attempt) {
    List<LeaseKeeper.Held> held = new ArrayList<>(toRun.size());
    try {
      for (BatchEntry<T> i : toRun) {
        if (i.claim != null) {
          held.add(engine.leases().hold(i.message, i.key(), i.claim.token(), options.lease()));
        }
      }
      List<BatchItem<T>> batch = new ArrayList<>(toRun.size());
      List<DefaultHandlerContext> contexts = new ArrayList<>(toRun.size());
      for (BatchEntry<T> i : toRun) {
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
        for (BatchEntry<T> i : toRun) {
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
      List<BatchEntry<T>> toRun,
      List<BatchItem<T>> batch,
      BatchResult result,
      Exception whole,
      long nanos) {
    List<BatchEntry<T>> succeeded = new ArrayList<>();
    List<Object> values = new ArrayList<>();
    List<CompleteRequest> completions = new ArrayList<>();
    for (int n = 0; n < toRun.size(); n++) {
      BatchEntry<T> i = toRun.get(n);
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
  private void fail(BatchEntry<T> i, Exception failure, long nanos) {
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
      List<BatchEntry<T>> succeeded,
      List<Object> values,
      List<CompleteRequest> requests,
      long nanos) {
    List<BatchCompleteResult> answers;
    try {
      answers = invoker.completeAllRetrying(requests);
    } catch (RuntimeException interrupted) {
      BatchEntry.failOpen(succeeded, interrupted); // the claims expire with their leases
      return;
    }
    for (int n = 0; n < succeeded.size(); n++) {
      BatchEntry<T> i = succeeded.get(n);
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

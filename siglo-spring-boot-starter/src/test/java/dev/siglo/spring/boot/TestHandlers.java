package dev.siglo.spring.boot;

import dev.siglo.consumer.HandlerContext;
import dev.siglo.consumer.MessageHandler;
import dev.siglo.consumer.error.PermanentException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Handlers and payloads the starter's tests run. */
public final class TestHandlers {
  private TestHandlers() {}

  /**
   * A payment.
   *
   * @param orderId the order
   * @param amount the amount; negative is declined
   */
  public record Payment(String orderId, long amount) {}

  /** A permanent decline. */
  public static final class CardDeclined extends PermanentException {
    private static final long serialVersionUID = 1L;

    CardDeclined(String message) {
      super(message);
    }
  }

  /**
   * Counts its runs per order; declines a negative amount; while {@link #hold} is closed, waits for
   * it after counting the start.
   */
  public static final class CountingPayments implements MessageHandler<Payment> {
    /** Runs per order id (declined runs included). */
    public final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

    /** Completed effects per order id. */
    public final Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();

    /** Handlers that started. */
    public final AtomicInteger started = new AtomicInteger();

    /** Opened to let held handlers finish; open from the start unless {@link #holdAll()}. */
    public volatile CountDownLatch hold = new CountDownLatch(0);

    /** From now on every handler waits for {@link #hold} after it started. */
    public void holdAll() {
      hold = new CountDownLatch(1);
    }

    @Override
    public Object handle(Payment payment, HandlerContext context) throws Exception {
      runs.computeIfAbsent(payment.orderId(), k -> new AtomicInteger()).incrementAndGet();
      started.incrementAndGet();
      if (!hold.await(60, TimeUnit.SECONDS)) {
        throw new IllegalStateException("held for 60 s");
      }
      if (payment.amount() < 0) {
        throw new CardDeclined("card declined for " + payment.orderId());
      }
      effects.computeIfAbsent(payment.orderId(), k -> new AtomicInteger()).incrementAndGet();
      return Map.of("charged", payment.amount());
    }
  }

  /** Handles strings; does nothing. */
  public static final class Strings implements MessageHandler<String> {
    @Override
    public Object handle(String payload, HandlerContext context) {
      return null;
    }
  }

  /**
   * Books payments a batch at once: counts each order's effect and the batch sizes; declines a
   * negative amount on its own.
   */
  public static final class BatchPayments
      implements dev.siglo.consumer.BatchMessageHandler<Payment> {
    /** Completed effects per order id. */
    public final Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();

    /** The size of every batch handled. */
    public final java.util.List<Integer> batchSizes =
        new java.util.concurrent.CopyOnWriteArrayList<>();

    @Override
    public dev.siglo.consumer.BatchResult handle(
        java.util.List<dev.siglo.consumer.BatchItem<Payment>> batch) {
      batchSizes.add(batch.size());
      dev.siglo.consumer.BatchResult.Builder result = dev.siglo.consumer.BatchResult.builder();
      for (dev.siglo.consumer.BatchItem<Payment> item : batch) {
        Payment payment = item.value();
        if (payment.amount() < 0) {
          result.failure(item, new CardDeclined("card declined for " + payment.orderId()));
        } else {
          effects.computeIfAbsent(payment.orderId(), k -> new AtomicInteger()).incrementAndGet();
        }
      }
      return result.build();
    }
  }
}

package dev.siglo.sqs;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageResponse;

/**
 * The real client, seen through a proxy that records what the runtime asks of the queue: the
 * messages each receive call returned, the receive calls in flight now, and the thread that sent
 * each batch delete and visibility change. Every call goes to the real client on ElasticMQ.
 */
final class RecordingSqsClient {
  /** Messages returned by each receive call, in order. */
  final List<Integer> receives = new CopyOnWriteArrayList<>();

  /** Receive calls waiting on the queue now. */
  final AtomicInteger receivesInFlight = new AtomicInteger();

  /** The thread of each {@code DeleteMessageBatch} and {@code ChangeMessageVisibilityBatch}. */
  final List<String> batchThreads = new CopyOnWriteArrayList<>();

  /** The thread of each single {@code ChangeMessageVisibility} or {@code DeleteMessage}. */
  final List<String> singleThreads = new CopyOnWriteArrayList<>();

  final SqsClient client;

  RecordingSqsClient(SqsClient real) {
    this.client =
        (SqsClient)
            Proxy.newProxyInstance(
                SqsClient.class.getClassLoader(),
                new Class<?>[] {SqsClient.class},
                (proxy, method, args) -> {
                  String name = method.getName();
                  boolean receive = name.equals("receiveMessage");
                  if (name.equals("deleteMessageBatch")
                      || name.equals("changeMessageVisibilityBatch")) {
                    batchThreads.add(Thread.currentThread().getName());
                  } else if (name.equals("deleteMessage")
                      || name.equals("changeMessageVisibility")) {
                    singleThreads.add(Thread.currentThread().getName());
                  }
                  if (receive) {
                    receivesInFlight.incrementAndGet();
                  }
                  try {
                    Object result = method.invoke(real, args);
                    if (receive) {
                      receives.add(((ReceiveMessageResponse) result).messages().size());
                    }
                    return result;
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  } finally {
                    if (receive) {
                      receivesInFlight.decrementAndGet();
                    }
                  }
                });
  }

  /**
   * @return the mean number of messages of the receive calls that returned any
   */
  double meanNonEmptyReceive() {
    return receives.stream().filter(n -> n > 0).mapToInt(Integer::intValue).average().orElse(0);
  }
}

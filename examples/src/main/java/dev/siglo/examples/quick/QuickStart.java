package dev.siglo.examples.quick;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.error.PermanentException;
import dev.siglo.kafka.SigloKafkaConsumer;
import java.util.Map;

/** The README's quick start: a whole consumer in a few lines. */
public final class QuickStart {
  private QuickStart() {}

  /** Pretend payment gateway of the quick start. */
  interface Gateway {
    /**
     * @param order the order as JSON
     * @return the charge id
     */
    String charge(String order);
  }

  /**
   * @param gateway the payment gateway
   * @return the started consumer
   */
  public static SigloKafkaConsumer<Map<String, Object>> start(Gateway gateway) {
    // README:start quick-start
    SigloKafkaConsumer<Map<String, Object>> consumer =
        SigloKafkaConsumer.builder(
                PayloadDecoder.json(new TypeReference<Map<String, Object>>() {}),
                (order, context) -> {
                  if ("blocked".equals(order.get("card"))) {
                    throw new PermanentException("card blocked"); // cached: never retried
                  }
                  return gateway.charge(order.get("orderId").toString()); // at most once per key
                })
            .bootstrapServers("localhost:9092")
            .groupId("payments")
            .topics("orders") // key: header idempotency-key, else the record key
            .build();
    consumer.start();
    // README:end quick-start
    return consumer;
  }
}

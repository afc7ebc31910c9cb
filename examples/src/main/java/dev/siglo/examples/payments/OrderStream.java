package dev.siglo.examples.payments;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The orders the quickstart and the demo send: every 7th card is declined, every 5th (other) card's
 * first charge times out.
 *
 * @param ids the order ids, in order
 * @param json each order as JSON, same order
 * @param declined the orders whose card is declined
 */
public record OrderStream(List<String> ids, List<String> json, Set<String> declined) {

  /**
   * @param count how many orders
   * @return the orders
   */
  public static OrderStream of(int count) {
    List<String> ids = new ArrayList<>();
    List<String> json = new ArrayList<>();
    Set<String> declined = new HashSet<>();
    for (int i = 1; i <= count; i++) {
      String id = "order-" + i;
      String card = i % 7 == 0 ? "card-declined" : i % 5 == 0 ? "card-flaky" : "card-ok";
      ids.add(id);
      if (card.equals("card-declined")) {
        declined.add(id);
      }
      json.add(
          String.format(
              "{\"orderId\":\"%s\",\"customerId\":\"c-%d\",\"amountCents\":%d,\"card\":\"%s\"}",
              id, i % 10, 1000 + i, card));
    }
    return new OrderStream(List.copyOf(ids), List.copyOf(json), Set.copyOf(declined));
  }

  /**
   * What the demos send: every order three times, shuffled (the same order every run), so that
   * duplicates run concurrently, with {@code undecodable} messages that are not JSON among them.
   *
   * @param undecodable how many messages are not JSON
   * @return the message bodies
   */
  public List<String> deliveries(int undecodable) {
    List<String> bodies = new ArrayList<>();
    for (String order : json) {
      bodies.add(order);
      bodies.add(order);
      bodies.add(order);
    }
    java.util.Collections.shuffle(bodies, new java.util.Random(7));
    for (int p = 0; p < undecodable; p++) {
      bodies.add(bodies.size() / 2, "{\"orderId\": this is not JSON " + p);
    }
    return bodies;
  }

  /**
   * @return a gateway declining and timing out the cards this stream uses
   */
  public static PaymentGateway gateway() {
    return new PaymentGateway(Set.of("card-declined"), Set.of("card-flaky"));
  }
}

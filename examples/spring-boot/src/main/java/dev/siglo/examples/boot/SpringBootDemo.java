package dev.siglo.examples.boot;

import dev.siglo.examples.demo.DemoReport;
import dev.siglo.examples.payments.OrderStream;
import dev.siglo.examples.payments.PaymentGateway;
import dev.siglo.spring.boot.SigloConsumerCustomizer;
import dev.siglo.testkit.KafkaBroker;
import dev.siglo.testkit.KafkaTestSupport;
import java.io.PrintStream;
import java.util.List;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Runs {@link PaymentsApplication} on an embedded Kafka broker: every order sent three times,
 * shuffled, with two undecodable messages; exits 0 only when the gateway's ledger shows every order
 * charged exactly once (declined cards never) and the group committed every offset.
 */
public final class SpringBootDemo {
  private static final int ORDERS = 60;

  private SpringBootDemo() {}

  /**
   * @param args ignored
   * @throws Exception when the demo cannot run
   */
  public static void main(String[] args) throws Exception {
    System.exit(run(System.out) ? 0 : 1);
  }

  /**
   * @param out where the summary goes
   * @return whether every order was charged exactly once
   * @throws Exception when the demo cannot run
   */
  public static boolean run(PrintStream out) throws Exception {
    OrderStream stream = OrderStream.of(ORDERS);
    List<String> bodies = stream.deliveries(2);
    DemoReport report = new DemoReport();
    try (KafkaBroker kafka = KafkaBroker.startOrExternal();
        KafkaTestSupport topics = new KafkaTestSupport(kafka)) {
      kafka.createTopics(3, "orders", "orders-dlt");
      for (String body : bodies) {
        topics.send("orders", null, null, null, body); // the key is the payload's orderId
      }
      topics.flush();
      out.printf(
          "Siglo on Spring Boot: %d orders, %d messages (each order three times), 2 undecodable%n",
          ORDERS, bodies.size());
      SigloConsumerCustomizer reporting = (name, builder) -> builder.listener(report);
      ConfigurableApplicationContext app =
          new SpringApplicationBuilder(PaymentsApplication.class)
              .initializers(
                  ctx -> ctx.getBeanFactory().registerSingleton("demoReporting", reporting))
              .run("--spring.kafka.bootstrap-servers=" + kafka.bootstrapServers());
      PaymentGateway gateway = app.getBean(PaymentGateway.class);
      try {
        topics.awaitCommittedToEnd("payments", "orders", 3);
      } finally {
        app.close(); // drains: running handlers finish and commit
      }
      boolean ok = DemoReport.exactlyOnce(stream.ids(), stream.declined(), gateway.ledger());
      report.print(out, gateway, ok);
      return ok;
    }
  }
}

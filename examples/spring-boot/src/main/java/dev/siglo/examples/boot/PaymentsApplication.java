package dev.siglo.examples.boot;

import dev.siglo.examples.payments.ChargeOrderHandler;
import dev.siglo.examples.payments.OrderStream;
import dev.siglo.examples.payments.PaymentGateway;
import dev.siglo.examples.payments.ReceiptSender;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

// README:start boot-application
/**
 * The payments consumer as a Spring Boot application: a handler bean; application.yml does the
 * rest.
 */
@SpringBootApplication
public class PaymentsApplication {
  /**
   * @param gateway the payment gateway
   * @param receipts the receipt sender
   * @return the handler that siglo.consumers.payments.handler names
   */
  @Bean
  ChargeOrderHandler chargeOrderHandler(PaymentGateway gateway, ReceiptSender receipts) {
    return new ChargeOrderHandler(gateway, receipts);
  }

  @Bean
  PaymentGateway gateway() {
    return OrderStream.gateway();
  }

  @Bean
  ReceiptSender receipts() {
    return new ReceiptSender();
  }

  /**
   * @param args Spring Boot's arguments, such as --spring.kafka.bootstrap-servers=host:9092
   */
  public static void main(String[] args) {
    SpringApplication.run(PaymentsApplication.class, args);
  }
}
// README:end boot-application

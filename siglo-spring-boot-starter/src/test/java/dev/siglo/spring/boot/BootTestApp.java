package dev.siglo.spring.boot;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/** The Boot application the end-to-end tests run: one handler bean, the rest from properties. */
@SpringBootApplication
public class BootTestApp {
  /**
   * @return the payments handler
   */
  @Bean
  public TestHandlers.CountingPayments payments() {
    return new TestHandlers.CountingPayments();
  }
}

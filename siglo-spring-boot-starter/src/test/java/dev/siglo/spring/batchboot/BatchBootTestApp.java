package dev.siglo.spring.batchboot;

import dev.siglo.spring.boot.TestHandlers;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * A Boot application whose only handler bean is a batch handler (in a package of its own: the other
 * test application scans its subpackages).
 */
@SpringBootApplication
public class BatchBootTestApp {
  /**
   * @return the ledger's batch handler
   */
  @Bean
  public TestHandlers.BatchPayments ledger() {
    return new TestHandlers.BatchPayments();
  }
}

package dev.siglo.spring.boot.autoconfigure;

import dev.siglo.spring.boot.SigloConsumer;
import dev.siglo.spring.boot.SigloProperties;

/** Builds the consumers of one broker; a bean only when that broker's Siglo module is present. */
interface BrokerRuntime {
  /**
   * @return the broker it builds for
   */
  SigloProperties.Broker broker();

  /**
   * @param settings the consumer's checked settings
   * @return the built, not started, consumer
   * @throws dev.siglo.spring.boot.SigloPropertyException naming what is wrong
   */
  SigloConsumer create(ConsumerSettings<?> settings);
}

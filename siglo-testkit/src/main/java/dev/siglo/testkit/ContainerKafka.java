package dev.siglo.testkit;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.kafka.KafkaContainer;

/**
 * An alternative test broker in a container ({@code org.testcontainers:testcontainers-kafka}, image
 * {@value #IMAGE}), for machines with a Docker engine. Add that optional dependency to use it;
 * check {@link #dockerAvailable()} first (the {@code docker} client alone is not enough).
 */
public final class ContainerKafka implements AutoCloseable {
  /** The Apache Kafka image used. */
  public static final String IMAGE = "apache/kafka:4.1.0";

  private final KafkaContainer container;

  private ContainerKafka(KafkaContainer container) {
    this.container = container;
  }

  /**
   * @return whether a Docker engine answers
   */
  public static boolean dockerAvailable() {
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException e) {
      return false;
    }
  }

  /**
   * @return a started container broker
   */
  public static ContainerKafka start() {
    KafkaContainer c = new KafkaContainer(IMAGE);
    c.start();
    return new ContainerKafka(c);
  }

  /**
   * @return the bootstrap servers
   */
  public String bootstrapServers() {
    return container.getBootstrapServers();
  }

  /** Stops and removes the container. */
  @Override
  public void close() {
    container.stop();
  }
}

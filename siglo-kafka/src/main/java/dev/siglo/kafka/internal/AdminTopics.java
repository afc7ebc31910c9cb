package dev.siglo.kafka.internal;

import dev.siglo.consumer.error.SigloConfigurationException;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/** Creates topics with the consumer's connection settings (bootstrap servers, security). */
final class AdminTopics {
  private static final long TIMEOUT_SECONDS = 30;

  private AdminTopics() {}

  /**
   * Creates the topics with the broker's default partition count and replication; a topic created
   * meanwhile by someone else is fine.
   *
   * @param clientProperties the consumer's client properties
   * @param topics the topics
   * @throws SigloConfigurationException when the broker refuses or does not answer in time
   */
  static void create(Map<String, Object> clientProperties, Set<String> topics) {
    try (Admin admin = Admin.create(clientProperties)) {
      admin
          .createTopics(
              topics.stream()
                  .map(t -> new NewTopic(t, Optional.empty(), Optional.empty()))
                  .toList())
          .all()
          .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new SigloConfigurationException(
            "creating dead-letter topic(s) " + topics + " failed: " + e.getCause(), e.getCause());
      }
    } catch (TimeoutException e) {
      throw new SigloConfigurationException(
          "creating dead-letter topic(s) " + topics + " took over " + TIMEOUT_SECONDS + " s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SigloConfigurationException(
          "interrupted while creating dead-letter topic(s) " + topics, e);
    }
  }
}

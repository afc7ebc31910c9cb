package dev.siglo.kafka.internal;

import dev.siglo.consumer.error.SigloConfigurationException;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.LoggerFactory;

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

  /**
   * The dead-letter topics of the subscribed topics must exist before the first record runs: a dead
   * letter headed for a missing topic would otherwise hold its record while the producer retries.
   * Missing ones are created when asked, else they stop the consumer.
   *
   * @param topics the subscribed topics
   * @param deadLetterTopic each one's dead-letter topic ({@code null}: none)
   * @param create whether missing ones are created
   * @param existing the topics that exist
   * @param creator creates the missing ones
   * @throws SigloConfigurationException naming the missing topics when they are not created
   */
  static void requireDeadLetterTopics(
      Collection<String> topics,
      Function<String, String> deadLetterTopic,
      boolean create,
      Set<String> existing,
      java.util.function.Consumer<Set<String>> creator) {
    Set<String> missing = new TreeSet<>();
    for (String topic : topics) {
      String dlt = deadLetterTopic.apply(topic);
      if (dlt != null && !existing.contains(dlt)) {
        missing.add(dlt);
      }
    }
    if (missing.isEmpty()) {
      return;
    }
    if (!create) {
      throw new SigloConfigurationException(
          "dead-letter topic(s) "
              + missing
              + " do not exist: create them, set createDeadLetterTopics(true), or point"
              + " deadLetterTopic(...) at topics that exist");
    }
    creator.accept(missing);
    LoggerFactory.getLogger(AdminTopics.class).info("created dead-letter topic(s) {}", missing);
  }
}

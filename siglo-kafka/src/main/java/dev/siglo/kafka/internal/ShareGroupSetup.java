package dev.siglo.kafka.internal;

import dev.siglo.consumer.error.SigloConfigurationException;
import dev.siglo.consumer.support.Time;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a share consumer checks and prepares before it subscribes, with one {@link Admin} on the
 * consumer's connection settings: its topics exist (waiting up to the topic check timeout), their
 * dead-letter topics exist (created when asked), and the share group's configuration fits Siglo:
 * renewal acknowledgements are enabled, and the group's delivery count limit is not below {@code
 * maxDeliveries} (else the broker would archive a failing record before Siglo dead-letters it).
 * When asked, it sets the group's {@code share.auto.offset.reset} if the group has none of its own.
 */
final class ShareGroupSetup {
  private static final Logger log = LoggerFactory.getLogger(ShareGroupSetup.class);
  static final String DELIVERY_COUNT_LIMIT = "share.delivery.count.limit";
  static final String RENEW_ENABLE = "share.renew.acknowledge.enable";
  static final String AUTO_OFFSET_RESET = "share.auto.offset.reset";
  static final int DEFAULT_DELIVERY_COUNT_LIMIT = 5;
  private static final long CALL_SECONDS = 10;
  private static final Duration TOPIC_CHECK_PAUSE = Duration.ofMillis(500);

  private ShareGroupSetup() {}

  /**
   * @param settings the runtime's settings
   * @param time the clock the topic check's deadline is measured on
   * @return the group's delivery count limit
   * @throws SigloConfigurationException naming the topic or the group setting that does not fit
   * @throws InterruptedException when interrupted while waiting for the topics
   */
  static int prepare(ShareRuntimeConfig settings, Time time) throws InterruptedException {
    try (Admin admin = Admin.create(adminProperties(settings.clientProperties()))) {
      Set<String> existing = awaitTopics(admin, settings, time);
      AdminTopics.requireDeadLetterTopics(
          settings.topics(),
          settings.deadLetterTopic(),
          settings.createDeadLetterTopics(),
          existing,
          missing -> AdminTopics.create(settings.clientProperties(), missing));
      return groupConfig(admin, settings);
    }
  }

  private static Map<String, Object> adminProperties(Map<String, Object> client) {
    Map<String, Object> props = new HashMap<>();
    client.forEach(
        (k, v) -> {
          if (AdminClientConfig.configNames().contains(k)) {
            props.put(k, v);
          }
        });
    props.put(AdminClientConfig.CLIENT_ID_CONFIG, client.get("client.id") + "-admin");
    return props;
  }

  private static Set<String> awaitTopics(Admin admin, ShareRuntimeConfig s, Time time)
      throws InterruptedException {
    long deadline = time.nanoTime() + s.topicCheckTimeout().toNanos();
    while (true) {
      Set<String> existing = null;
      try {
        existing = admin.listTopics().names().get(CALL_SECONDS, TimeUnit.SECONDS);
      } catch (ExecutionException | TimeoutException e) {
        // no answer yet (a broker starting or restarting): ask again until the deadline
      }
      Set<String> missing = new TreeSet<>(s.topics());
      if (existing != null) {
        missing.removeAll(existing);
        if (missing.isEmpty()) {
          return existing;
        }
      }
      if (time.nanoTime() - deadline > 0) {
        throw new SigloConfigurationException(
            existing == null
                ? "Kafka did not answer a metadata request within "
                    + s.topicCheckTimeout()
                    + " (check bootstrap.servers and that the cluster is up)"
                : "topic(s) "
                    + missing
                    + " do not exist (checked for "
                    + s.topicCheckTimeout()
                    + ")");
      }
      time.sleep(TOPIC_CHECK_PAUSE);
    }
  }

  private static int groupConfig(Admin admin, ShareRuntimeConfig s) throws InterruptedException {
    ConfigResource group = new ConfigResource(ConfigResource.Type.GROUP, s.groupId());
    Config config;
    try {
      config =
          admin
              .describeConfigs(List.of(group))
              .all()
              .get(CALL_SECONDS, TimeUnit.SECONDS)
              .get(group);
    } catch (ExecutionException | TimeoutException e) {
      log.warn(
          "cannot read the configuration of share group '{}' ({}); assuming the broker defaults",
          s.groupId(),
          e instanceof ExecutionException ? e.getCause().toString() : e.toString());
      return DEFAULT_DELIVERY_COUNT_LIMIT;
    }
    ConfigEntry renew = config == null ? null : config.get(RENEW_ENABLE);
    if (renew != null && !Boolean.parseBoolean(renew.value())) {
      throw new SigloConfigurationException(
          "share group '"
              + s.groupId()
              + "' has "
              + RENEW_ENABLE
              + "=false: Siglo renews the acquisition lock of a handler that outlives it; set it to"
              + " true");
    }
    ConfigEntry limitEntry = config == null ? null : config.get(DELIVERY_COUNT_LIMIT);
    int limit =
        limitEntry == null || limitEntry.value() == null
            ? DEFAULT_DELIVERY_COUNT_LIMIT
            : Integer.parseInt(limitEntry.value());
    if (s.maxDeliveries() > limit) {
      throw new SigloConfigurationException(
          "maxDeliveries ("
              + s.maxDeliveries()
              + ") exceeds the "
              + DELIVERY_COUNT_LIMIT
              + " ("
              + limit
              + ") of share group '"
              + s.groupId()
              + "': the broker archives a record after "
              + limit
              + " deliveries, before Siglo dead-letters it; lower maxDeliveries or raise the group's "
              + DELIVERY_COUNT_LIMIT);
    }
    if (s.autoOffsetReset() != null) {
      ConfigEntry reset = config == null ? null : config.get(AUTO_OFFSET_RESET);
      boolean own =
          reset != null && reset.source() == ConfigEntry.ConfigSource.DYNAMIC_GROUP_CONFIG;
      if (!own) {
        setAutoOffsetReset(admin, group, s.autoOffsetReset());
      }
    }
    return limit;
  }

  private static void setAutoOffsetReset(Admin admin, ConfigResource group, String value)
      throws InterruptedException {
    Map<ConfigResource, Collection<AlterConfigOp>> ops =
        Map.of(
            group,
            List.of(
                new AlterConfigOp(
                    new ConfigEntry(AUTO_OFFSET_RESET, value), AlterConfigOp.OpType.SET)));
    try {
      admin.incrementalAlterConfigs(ops).all().get(CALL_SECONDS, TimeUnit.SECONDS);
      log.info("share group '{}': set {}={}", group.name(), AUTO_OFFSET_RESET, value);
    } catch (ExecutionException | TimeoutException e) {
      throw new SigloConfigurationException(
          "cannot set "
              + AUTO_OFFSET_RESET
              + "="
              + value
              + " on share group '"
              + group.name()
              + "' ("
              + (e instanceof ExecutionException ? e.getCause() : e)
              + "): grant ALTER_CONFIGS on the group, set it yourself and pass autoOffsetReset(null),"
              + " or pass autoOffsetReset(null) to keep the broker's default",
          e);
    }
  }
}

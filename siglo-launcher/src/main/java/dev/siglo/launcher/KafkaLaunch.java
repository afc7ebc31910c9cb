package dev.siglo.launcher;

import dev.siglo.kafka.Ordering;
import dev.siglo.kafka.SigloKafkaConsumer;
import dev.siglo.kafka.SigloKafkaShareConsumer;
import java.io.PrintStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.CommonClientConfigs;

/**
 * Starts a {@link SigloKafkaConsumer} ({@code siglo.broker=kafka}) or a {@link
 * SigloKafkaShareConsumer} ({@code siglo.broker=kafka-share}) from the configuration, after its
 * start-up checks. Both read the same {@code siglo.kafka.*} keys; the share consumer also reads
 * {@code siglo.kafka.share.*} and refuses {@code siglo.kafka.ordering}, since share groups promise
 * no order.
 */
final class KafkaLaunch {
  private KafkaLaunch() {}

  static <T> SigloLauncher.Running start(
      LauncherConfig config, LaunchSettings<T> settings, PrintStream out, boolean share) {
    String servers = config.required(LauncherKey.KAFKA_BOOTSTRAP);
    String group = config.required(LauncherKey.KAFKA_GROUP);
    List<String> topics = List.of(config.required(LauncherKey.KAFKA_TOPICS).split("\\s*,\\s*"));
    if (share && config.isSet(LauncherKey.KAFKA_ORDERING)) {
      throw config.error(
          LauncherKey.KAFKA_ORDERING.key(),
          "does not apply to siglo.broker=kafka-share: share groups promise no order");
    }
    Ordering ordering = share ? null : ordering(config);
    String suffix = config.required(LauncherKey.KAFKA_DLT_SUFFIX);
    boolean declines = bool(config, LauncherKey.KAFKA_DLT_DECLINES);
    boolean create = bool(config, LauncherKey.KAFKA_CREATE_DLT);
    Map<String, String> properties = config.kafkaProperties();
    Map<String, Object> client = new HashMap<>(properties);
    client.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, servers);
    Set<String> deadLetterTopics = new LinkedHashSet<>();
    topics.forEach(t -> deadLetterTopics.add(t + suffix));

    StartupSummary summary =
        new StartupSummary()
            .add(
                "broker",
                (share ? "kafka share group at " : "kafka at ")
                    + servers
                    + ", group "
                    + group
                    + ", topics "
                    + String.join(", ", topics));
    if (share) {
      summary.add("in flight", inFlight(config, settings) + " records at most");
    } else {
      summary.add("ordering", ordering.name());
    }
    summary
        .add("kafka properties", StartupSummary.properties(properties))
        .add(
            "dead letters",
            String.join(", ", deadLetterTopics)
                + (create ? " (created when missing)" : "")
                + (declines ? ", declines copied" : ", declines not copied"));
    LaunchSettings.Started started = settings.startDependencies(config, summary);
    try {
      settings.checks().kafka(client, topics, create ? Set.of() : deadLetterTopics);
      if (share) {
        return startShare(config, settings, out, summary, started, topics, properties);
      }
      SigloKafkaConsumer.Builder<T> b =
          settings
              .handler()
              .builder(
                  settings.decoder(),
                  SigloKafkaConsumer::builder,
                  SigloKafkaConsumer::asyncBuilder,
                  SigloKafkaConsumer::batchBuilder)
              .bootstrapServers(servers)
              .groupId(group)
              .topics(topics.toArray(String[]::new))
              .ordering(ordering)
              .deadLetterTopic(t -> t + suffix)
              .deadLetterDeclines(declines)
              .createDeadLetterTopics(create)
              .concurrency(settings.concurrency());
      properties.forEach(b::property);
      SigloKafkaConsumer<T> consumer = settings.apply(b, started).build();
      return LaunchSettings.launch(
          config,
          summary,
          out,
          consumer::start,
          consumer.termination(),
          () -> consumer.close(Duration.ofSeconds(30)),
          started);
    } catch (RuntimeException e) {
      started.close();
      throw e instanceof IllegalArgumentException ? config.error("siglo.kafka", e.getMessage()) : e;
    }
  }

  private static <T> SigloLauncher.Running startShare(
      LauncherConfig config,
      LaunchSettings<T> settings,
      PrintStream out,
      StartupSummary summary,
      LaunchSettings.Started started,
      List<String> topics,
      Map<String, String> properties) {
    String suffix = config.required(LauncherKey.KAFKA_DLT_SUFFIX);
    String reset = config.required(LauncherKey.KAFKA_SHARE_AUTO_OFFSET_RESET);
    SigloKafkaShareConsumer.Builder<T> b =
        settings
            .handler()
            .builder(
                settings.decoder(),
                SigloKafkaShareConsumer::builder,
                SigloKafkaShareConsumer::asyncBuilder,
                SigloKafkaShareConsumer::batchBuilder)
            .bootstrapServers(config.required(LauncherKey.KAFKA_BOOTSTRAP))
            .groupId(config.required(LauncherKey.KAFKA_GROUP))
            .topics(topics.toArray(String[]::new))
            .deadLetterTopic(t -> t + suffix)
            .deadLetterDeclines(bool(config, LauncherKey.KAFKA_DLT_DECLINES))
            .createDeadLetterTopics(bool(config, LauncherKey.KAFKA_CREATE_DLT))
            .autoOffsetReset(reset.equals("none") ? null : reset)
            .maxInFlight(inFlight(config, settings))
            .concurrency(settings.concurrency());
    properties.forEach(b::property);
    SigloKafkaShareConsumer<T> consumer = settings.apply(b, started).build();
    return LaunchSettings.launch(
        config,
        summary,
        out,
        consumer::start,
        consumer.termination(),
        () -> consumer.close(Duration.ofSeconds(30)),
        started);
  }

  /** The share consumer's in-flight bound: set, else the builder's default. */
  private static int inFlight(LauncherConfig config, LaunchSettings<?> settings) {
    try {
      return settings
          .batching()
          .maxInFlight(
              config.isSet(LauncherKey.KAFKA_SHARE_MAX_IN_FLIGHT)
                  ? config.positiveInt(LauncherKey.KAFKA_SHARE_MAX_IN_FLIGHT)
                  : null,
              settings.concurrency() * SigloKafkaShareConsumer.DEFAULT_IN_FLIGHT_PER_WORKER);
    } catch (dev.siglo.consumer.error.SigloConfigurationException e) {
      throw config.error(
          config.name(LauncherKey.KAFKA_SHARE_MAX_IN_FLIGHT),
          e.getMessage() + " (" + config.name(LauncherKey.BATCH_SIZE) + ")");
    }
  }

  private static boolean bool(LauncherConfig config, LauncherKey key) {
    return config.oneOf(key, "true", "false").equals("true");
  }

  private static Ordering ordering(LauncherConfig config) {
    String value = config.required(LauncherKey.KAFKA_ORDERING).toUpperCase(Locale.ROOT);
    try {
      return Ordering.valueOf(value);
    } catch (IllegalArgumentException e) {
      throw config.error(
          LauncherKey.KAFKA_ORDERING.key(), "'" + value + "' must be KEY, PARTITION or UNORDERED");
    }
  }
}

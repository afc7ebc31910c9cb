package dev.siglo.launcher;

import dev.siglo.kafka.Ordering;
import dev.siglo.kafka.SigloKafkaConsumer;
import java.io.PrintStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.CommonClientConfigs;

/** Starts a {@link SigloKafkaConsumer} from the configuration, after its start-up checks. */
final class KafkaLaunch {
  private KafkaLaunch() {}

  static <T> SigloLauncher.Running start(
      LauncherConfig config, LaunchSettings<T> settings, PrintStream out) {
    String servers = config.required(LauncherKey.KAFKA_BOOTSTRAP);
    String group = config.required(LauncherKey.KAFKA_GROUP);
    List<String> topics = List.of(config.required(LauncherKey.KAFKA_TOPICS).split("\\s*,\\s*"));
    Ordering ordering = ordering(config);
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
                "kafka at "
                    + servers
                    + ", group "
                    + group
                    + ", topics "
                    + String.join(", ", topics))
            .add("ordering", ordering.name())
            .add("kafka properties", StartupSummary.properties(properties))
            .add(
                "dead letters",
                String.join(", ", deadLetterTopics)
                    + (create ? " (created when missing)" : "")
                    + (declines ? ", declines copied" : ", declines not copied"));
    LaunchSettings.Started started = settings.startDependencies(config, summary);
    try {
      settings.checks().kafka(client, topics, create ? Set.of() : deadLetterTopics);
      SigloKafkaConsumer.Builder<T> b =
          SigloKafkaConsumer.builder(settings.decoder(), settings.handler())
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

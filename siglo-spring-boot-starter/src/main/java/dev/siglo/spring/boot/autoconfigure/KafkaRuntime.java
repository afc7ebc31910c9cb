package dev.siglo.spring.boot.autoconfigure;

import dev.siglo.consumer.error.SigloConfigurationException;
import dev.siglo.kafka.Ordering;
import dev.siglo.kafka.SigloKafkaConsumer;
import dev.siglo.spring.boot.SigloConsumer;
import dev.siglo.spring.boot.SigloProperties;
import dev.siglo.spring.boot.SigloPropertyException;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * Builds {@link SigloKafkaConsumer}s. The client properties are Boot's ({@code spring.kafka.*}:
 * bootstrap servers, security, SSL bundle, {@code spring.kafka.properties.*}) when spring-kafka is
 * present, else {@code spring.kafka.bootstrap-servers} and {@code spring.kafka.properties.*} read
 * from the environment, under the consumer's own {@code bootstrap-servers} and {@code properties}.
 * What Siglo manages itself is dropped from Boot's: the deserializers (records are read as bytes),
 * auto commit (always off), the group and client ids (each consumer has its own).
 */
final class KafkaRuntime implements BrokerRuntime {
  private static final Set<String> MANAGED =
      Set.of(
          ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
          ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
          ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
          ConsumerConfig.AUTO_COMMIT_INTERVAL_MS_CONFIG,
          ConsumerConfig.GROUP_ID_CONFIG,
          ConsumerConfig.CLIENT_ID_CONFIG);

  private final Supplier<Map<String, Object>> bootProperties;

  /**
   * @param bootProperties Boot's Kafka consumer properties, or an empty map without spring-kafka
   */
  KafkaRuntime(Supplier<Map<String, Object>> bootProperties) {
    this.bootProperties = bootProperties;
  }

  /**
   * Without spring-kafka, Boot's Kafka properties are not bound; the two every application sets are
   * read here all the same: {@code spring.kafka.bootstrap-servers} and {@code
   * spring.kafka.properties.*}.
   *
   * @param env the environment
   * @return those properties
   */
  static Map<String, Object> fromEnvironment(Environment env) {
    Binder binder = Binder.get(env);
    Map<String, Object> out =
        new HashMap<>(
            binder
                .bind("spring.kafka.properties", Bindable.mapOf(String.class, String.class))
                .orElse(Map.of()));
    binder
        .bind("spring.kafka.bootstrap-servers", Bindable.listOf(String.class))
        .ifBound(servers -> out.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, servers));
    return out;
  }

  @Override
  public SigloProperties.Broker broker() {
    return SigloProperties.Broker.KAFKA;
  }

  @Override
  public SigloConsumer create(ConsumerSettings<?> settings) {
    return build(settings);
  }

  private <T> SigloConsumer build(ConsumerSettings<T> s) {
    SigloProperties.Consumer p = s.props();
    Map<String, Object> client = new HashMap<>(bootProperties.get());
    MANAGED.forEach(client::remove);
    client.putAll(p.getProperties());
    Object servers =
        p.getBootstrapServers().isEmpty()
            ? client.remove(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG)
            : String.join(",", p.getBootstrapServers());
    client.remove(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG);
    if (servers == null || servers.toString().isBlank() || servers.toString().equals("[]")) {
      throw new SigloPropertyException(
          s.property("bootstrap-servers"), "is required (or spring.kafka.bootstrap-servers)");
    }
    String bootstrap =
        servers instanceof List<?> list
            ? String.join(",", list.stream().map(Object::toString).toList())
            : servers.toString();
    List<String> topics = p.getTopics();
    SigloKafkaConsumer.Builder<T> b =
        s.handler()
            .builder(
                s.decoder(),
                SigloKafkaConsumer::builder,
                SigloKafkaConsumer::asyncBuilder,
                SigloKafkaConsumer::batchBuilder)
            .bootstrapServers(bootstrap)
            .groupId(p.getGroupId() != null ? p.getGroupId() : s.name())
            .topics(topics.toArray(String[]::new))
            .ordering(ordering(s))
            .deadLetterTopic(t -> t + p.getDeadLetterTopicSuffix())
            .deadLetterDeclines(p.isDeadLetterDeclines())
            .createDeadLetterTopics(p.isCreateDeadLetterTopics());
    try {
      b.concurrency(p.getConcurrency());
      client.forEach(b::property);
    } catch (IllegalArgumentException e) {
      throw new SigloPropertyException(s.property("properties"), e.getMessage());
    }
    SigloConsumer.PauseTracker pauses = new SigloConsumer.PauseTracker();
    SigloKafkaConsumer<T> consumer;
    try {
      consumer = s.apply(b, pauses).build();
    } catch (SigloConfigurationException | IllegalArgumentException e) {
      throw new SigloPropertyException(s.property("properties"), e.getMessage());
    }
    return SigloConsumer.of(
        s.name(),
        broker(),
        String.join(",", topics),
        s.store(),
        consumer::start,
        consumer::close,
        pauses);
  }

  private static Ordering ordering(ConsumerSettings<?> s) {
    String value = s.props().getOrdering().toUpperCase(Locale.ROOT);
    try {
      return Ordering.valueOf(value);
    } catch (IllegalArgumentException e) {
      throw new SigloPropertyException(
          s.property("ordering"), "'" + value + "' must be KEY, PARTITION or UNORDERED");
    }
  }
}

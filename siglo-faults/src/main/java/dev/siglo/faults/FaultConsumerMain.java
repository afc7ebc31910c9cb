package dev.siglo.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.siglo.consumer.BatchItem;
import dev.siglo.consumer.BatchMessageHandler;
import dev.siglo.consumer.BatchResult;
import dev.siglo.consumer.IdempotencyConfig;
import dev.siglo.consumer.MessageHandler;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.RetryConfig;
import dev.siglo.consumer.event.SigloEvent;
import dev.siglo.consumer.event.SigloEventListener;
import dev.siglo.consumer.key.Fingerprints;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.kafka.SigloKafkaConsumer;
import dev.siglo.kafka.SigloKafkaShareConsumer;
import dev.siglo.sqs.SigloSqsConsumer;
import dev.siglo.store.postgres.PostgresIdempotencyStore;
import dev.siglo.store.postgres.PostgresStoreConfig;
import dev.siglo.store.postgres.TransactionalStep;
import dev.siglo.store.redis.RedisIdempotencyStore;
import dev.siglo.store.redis.RedisStoreConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.InputStream;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import redis.clients.jedis.HostAndPort;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The consumer under test, in its own JVM so a test can SIGKILL, SIGSTOP or SIGTERM it. Arguments
 * are {@code name=value}: {@code broker} (kafka|kafka-share|sqs), {@code mode} ({@code tx}: the
 * effect is written by a PostgreSQL transactional step, in the transaction of its record, on the
 * PostgreSQL store; {@code outside}: the effect is an auto-committed insert and the store is
 * Redis), {@code postgres} (JDBC URL of the effects database), {@code redis} (host:port), or {@code
 * redisCluster} (host:port of one node) with {@code replicaAcks} (replicas that acknowledge each
 * claim, 0: off), {@code scenario}, {@code concurrency}, {@code leaseMillis}, {@code
 * handlerMillis}, {@code slowMillis} (for payloads with {@code "slow": true}); Kafka: {@code
 * bootstrap}, {@code topic}, {@code group}; SQS: {@code endpoint}, {@code queueUrl}, {@code
 * dlqUrl}, {@code visibilitySeconds}; {@code handler=batch} (Kafka): a {@code BatchMessageHandler}
 * at the default batch size and linger, which halts the JVM when any message of its batch says so,
 * waits {@code handlerMillis} once, writes each message's effect, and waits again; {@code
 * pauseInTx=true} (tx mode): the second wait is inside the step's open transaction.
 *
 * <p>Each payload is JSON {@code {"key": ..., "seq": ...}}; the idempotency key is the message's
 * {@code idempotency-key} header or attribute. The handler waits {@code handlerMillis}, writes the
 * effect, waits {@code handlerMillis} again (so a kill can land between the effect and the record's
 * completion), and returns. Prints {@value #READY} once the consumer runs; halts when its parent's
 * stdin pipe closes (the test JVM is gone); SIGTERM closes it cleanly.
 */
public final class FaultConsumerMain {
  /** Printed on stdout once the consumer has started. */
  public static final String READY = "SIGLO-FAULTS-READY";

  private FaultConsumerMain() {}

  /**
   * @param args {@code name=value} pairs, see the class description
   * @throws Exception when the consumer cannot start
   */
  public static void main(String[] args) throws Exception {
    Map<String, String> a = new HashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      a.put(arg.substring(0, eq), arg.substring(eq + 1));
    }
    watchParent();
    String scenario = a.get("scenario");
    String mode = a.get("mode");
    int concurrency = Integer.parseInt(a.getOrDefault("concurrency", "8"));
    long handlerMillis = Long.parseLong(a.getOrDefault("handlerMillis", "2"));
    boolean pauseInTx = mode.equals("tx") && Boolean.parseBoolean(a.get("pauseInTx"));
    long slowMillis = Long.parseLong(a.getOrDefault("slowMillis", "0"));
    IdempotencyConfig options =
        IdempotencyConfig.custom()
            .lease(Duration.ofMillis(Long.parseLong(a.getOrDefault("leaseMillis", "120000"))))
            .build();

    HikariConfig hikari = new HikariConfig();
    hikari.setJdbcUrl(a.get("postgres"));
    hikari.setMaximumPoolSize(concurrency + 4);
    hikari.setConnectionTimeout(2_000);
    hikari.setPoolName("faults-" + ProcessHandle.current().pid());
    // names this process's sessions in pg_stat_activity, where a scenario finds its transactions
    hikari.addDataSourceProperty("ApplicationName", applicationName(ProcessHandle.current().pid()));
    HikariDataSource db = new HikariDataSource(hikari);
    Effects effects = new Effects(db);

    IdempotencyStore store;
    MessageHandler<JsonNode> handler;
    Effect effect;
    if (mode.equals("tx")) {
      PostgresIdempotencyStore postgres =
          PostgresIdempotencyStore.of(
              PostgresStoreConfig.builder(db)
                  .table("faults_idempotency")
                  .createTable(true)
                  .build());
      TransactionalStep<String[], Long> step =
          TransactionalStep.<String[], Long>of(
                  postgres,
                  "effect",
                  Long.class,
                  (connection, in) -> {
                    Effects.write(connection, scenario, in[0], in[1]);
                    if (pauseInTx) {
                      Thread.sleep(handlerMillis); // the transaction stays open meanwhile
                    }
                    return 1L;
                  })
              .idempotent(in -> "effect", options);
      store = postgres;
      effect =
          (value, context) ->
              context.run(step, new String[] {value.path("key").asText(), context.message().id()});
    } else {
      RedisStoreConfig.Builder redis =
          RedisStoreConfig.custom()
              .keyPrefix("faults:")
              .poolSize(concurrency + 4)
              .timeouts(Duration.ofSeconds(1), Duration.ofSeconds(1));
      if (a.containsKey("redisCluster")) {
        redis.cluster(List.of(HostAndPort.from(a.get("redisCluster"))));
      } else {
        String[] address = a.get("redis").split(":");
        redis.hostAndPort(address[0], Integer.parseInt(address[1]));
      }
      int replicaAcks = Integer.parseInt(a.getOrDefault("replicaAcks", "0"));
      if (replicaAcks > 0) {
        redis.replicaAcks(replicaAcks, Duration.ofSeconds(1));
      }
      store = RedisIdempotencyStore.of(redis.build());
      effect =
          (value, context) ->
              effects.write(scenario, value.path("key").asText(), context.message().id());
    }
    handler =
        (value, context) -> {
          pause(value, handlerMillis, slowMillis);
          effect.write(value, context);
          pause(value, pauseInTx ? 0 : handlerMillis, 0);
          return null;
        };
    BatchMessageHandler<JsonNode> batchHandler =
        batch -> {
          for (BatchItem<JsonNode> item : batch) {
            pause(item.value(), 0, 0); // a halting record kills the JVM with its whole batch
          }
          Thread.sleep(handlerMillis);
          for (BatchItem<JsonNode> item : batch) {
            effect.write(item.value(), item.context());
          }
          Thread.sleep(handlerMillis);
          return BatchResult.allSucceeded();
        };
    // the retry and delivery defaults a user gets: a fault the defaults cannot survive is a bug
    RetryConfig retry = RetryConfig.defaults();
    SigloEventListener seen =
        event -> {
          if (event instanceof SigloEvent.Processed
              || event instanceof SigloEvent.Duplicate
              || event instanceof SigloEvent.Declined
              || event instanceof SigloEvent.DeadLettered) {
            Effects.retrying(
                "record a finished message", () -> effects.seen(scenario, event.message().id()));
          }
        };
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    PauseRecorder pauses = new PauseRecorder(effects, scenario, registry);
    CompletableFuture<Void> stopped;
    if (a.get("broker").equals("kafka")) {
      SigloKafkaConsumer<JsonNode> consumer =
          (a.getOrDefault("handler", "message").equals("batch")
                  ? SigloKafkaConsumer.batchBuilder(PayloadDecoder.jsonTree(), batchHandler)
                  : SigloKafkaConsumer.builder(PayloadDecoder.jsonTree(), handler))
              .bootstrapServers(a.get("bootstrap"))
              .groupId(a.get("group"))
              .topics(a.get("topic"))
              .store(store)
              .fingerprint(Fingerprints.payloadSha256())
              .idempotency(options)
              .retry(retry)
              .concurrency(concurrency)
              .listener(seen)
              .listener(pauses)
              .metrics(registry)
              .property("session.timeout.ms", "6000")
              .property("heartbeat.interval.ms", "1000")
              .shutdownHook(true)
              .build();
      stopped = consumer.start();
    } else if (a.get("broker").equals("kafka-share")) {
      SigloKafkaShareConsumer<JsonNode> consumer =
          SigloKafkaShareConsumer.builder(PayloadDecoder.jsonTree(), handler)
              .bootstrapServers(a.get("bootstrap"))
              .groupId(a.get("group"))
              .topics(a.get("topic"))
              .store(store)
              .fingerprint(Fingerprints.payloadSha256())
              .idempotency(options)
              .retry(retry)
              .concurrency(concurrency)
              .listener(seen)
              .listener(pauses)
              .metrics(registry)
              .shutdownHook(true)
              .build();
      stopped = consumer.start();
    } else {
      SqsClient sqs =
          SqsClient.builder()
              .endpointOverride(URI.create(a.get("endpoint")))
              .region(Region.US_EAST_1)
              .credentialsProvider(
                  StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
              .build();
      SigloSqsConsumer<JsonNode> consumer =
          SigloSqsConsumer.builder(PayloadDecoder.jsonTree(), handler)
              .client(sqs)
              .queueUrl(a.get("queueUrl"))
              .store(store)
              .fingerprint(Fingerprints.payloadSha256())
              .idempotency(options)
              .retry(retry)
              .threads(2, concurrency, concurrency * 4)
              .listener(seen)
              .listener(pauses)
              .metrics(registry)
              .waitTime(Duration.ofSeconds(1))
              .heartbeat(
                  Duration.ofSeconds(Long.parseLong(a.getOrDefault("visibilitySeconds", "30"))),
                  0.5)
              .deadLetterQueue(a.get("dlqUrl"), false)
              .build();
      Runtime.getRuntime().addShutdownHook(new Thread(consumer::close, "faults-stop"));
      stopped = consumer.start();
    }
    System.out.println(READY);
    System.out.flush();
    try {
      stopped.join();
    } catch (RuntimeException e) {
      System.err.println("consumer failed: " + e);
      Runtime.getRuntime().halt(1);
    }
  }

  /** A message's effect, written by the handler. */
  @FunctionalInterface
  private interface Effect {
    void write(JsonNode value, dev.siglo.consumer.HandlerContext context) throws Exception;
  }

  /**
   * @param pid a consumer process's pid
   * @return the PostgreSQL {@code application_name} of that process's sessions
   */
  static String applicationName(long pid) {
    return "faults-" + pid;
  }

  private static void pause(JsonNode value, long millis, long slowMillis)
      throws InterruptedException {
    if (value.path("halt").asBoolean(false)) {
      Runtime.getRuntime().halt(137); // the poison under test: a record that kills its JVM
    }
    long wait = value.path("slow").asBoolean(false) ? slowMillis : millis;
    if (wait > 0) {
      Thread.sleep(wait); // the handler's simulated work
    }
  }

  /** Halts this JVM when the parent closes our stdin (it died or finished), as the broker does. */
  private static void watchParent() {
    Thread watchdog =
        new Thread(
            () -> {
              try (InputStream in = System.in) {
                while (in.read() >= 0) {
                  // keep reading until the parent closes the pipe
                }
              } catch (java.io.IOException e) {
                // the parent is gone
              }
              Runtime.getRuntime().halt(3);
            },
            "parent-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
  }
}

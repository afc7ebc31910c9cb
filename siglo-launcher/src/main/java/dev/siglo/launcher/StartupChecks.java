package dev.siglo.launcher;

import dev.siglo.consumer.error.SigloConfigurationException;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.consumer.support.NamedThreads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.GetQueueAttributesRequest;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * The launcher's checks of every dependency before the first message: the store answers and takes
 * the credentials; the broker answers, takes the credentials and has the topics and dead-letter
 * topics; or the AWS credentials resolve and the queue and dead-letter queue exist. Each check is
 * bounded by {@code siglo.startup.check-timeout}; a failure is a {@link
 * SigloConfigurationException} whose message names the file, the key and the problem in one line.
 */
final class StartupChecks {
  private final LauncherConfig config;
  private final Duration timeout;

  StartupChecks(LauncherConfig config) {
    this.config = config;
    this.timeout = config.positiveDuration(LauncherKey.STARTUP_CHECK_TIMEOUT);
  }

  /** The store answers and accepts the credentials. */
  void store(IdempotencyStore store) {
    within(
        LauncherKey.STORE.key(),
        "the store",
        () -> {
          try {
            store.checkConnection();
          } catch (SigloConfigurationException e) {
            throw config.error(storeKey(), e.getMessage());
          } catch (RuntimeException e) {
            throw config.error(storeKey(), "the store cannot be reached: " + oneLine(e));
          }
          return null;
        });
  }

  private String storeKey() {
    String kind = config.get(LauncherKey.STORE);
    return switch (kind) {
      case "redis" -> "siglo.store.redis";
      case "postgres" -> LauncherKey.STORE_POSTGRES_URL.key();
      default -> config.name(LauncherKey.STORE);
    };
  }

  /**
   * The broker answers with these settings and the topics exist.
   *
   * @param client the Kafka client properties (bootstrap servers and security)
   * @param topics the topics the consumer reads
   * @param deadLetterTopics the dead-letter topics, or empty when they are created at start
   */
  void kafka(Map<String, Object> client, List<String> topics, Set<String> deadLetterTopics) {
    Map<String, Object> admin = new java.util.HashMap<>(client);
    long ms = timeout.toMillis();
    admin.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) ms);
    admin.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) ms);
    admin.put(AdminClientConfig.CLIENT_ID_CONFIG, "siglo-startup-check");
    String servers = config.required(LauncherKey.KAFKA_BOOTSTRAP);
    within(
        LauncherKey.KAFKA_BOOTSTRAP.key(),
        "a Kafka broker at " + servers,
        () -> {
          try (Admin a = Admin.create(admin)) {
            a.describeCluster().nodes().get(ms, TimeUnit.MILLISECONDS);
            exist(a, topics, LauncherKey.KAFKA_TOPICS.key(), "topic", ms);
            exist(
                a,
                new ArrayList<>(deadLetterTopics),
                LauncherKey.KAFKA_DLT_SUFFIX.key(),
                "dead-letter topic",
                ms);
          } catch (ExecutionException e) {
            throw kafkaError(e.getCause(), servers);
          } catch (TimeoutException e) {
            throw config.error(
                LauncherKey.KAFKA_BOOTSTRAP.key(),
                "no Kafka broker answered at " + servers + " within " + timeout);
          }
          return null;
        });
  }

  private void exist(Admin admin, List<String> topics, String key, String what, long ms)
      throws ExecutionException, TimeoutException, InterruptedException {
    for (String topic : topics) {
      try {
        TopicDescription d =
            admin
                .describeTopics(List.of(topic))
                .allTopicNames()
                .get(ms, TimeUnit.MILLISECONDS)
                .get(topic);
        if (d == null) {
          throw missing(key, what, topic);
        }
      } catch (ExecutionException e) {
        if (e.getCause() instanceof UnknownTopicOrPartitionException) {
          throw missing(key, what, topic);
        }
        if (e.getCause() instanceof AuthorizationException) {
          throw config.error(key, "not authorized to describe the " + what + " '" + topic + "'");
        }
        throw e;
      }
    }
  }

  private SigloConfigurationException missing(String key, String what, String topic) {
    String fix =
        what.equals("topic")
            ? "create it first"
            : "create it, or set " + LauncherKey.KAFKA_CREATE_DLT.key() + "=true";
    return config.error(
        key, "the " + what + " '" + topic + "' does not exist on the broker (" + fix + ")");
  }

  private SigloConfigurationException kafkaError(Throwable cause, String servers) {
    if (cause instanceof SslAuthenticationException) {
      return config.error(
          "siglo.kafka.properties.ssl.*",
          "the TLS handshake with the broker failed: " + oneLine(cause));
    }
    if (cause instanceof AuthenticationException) {
      return config.error(
          "siglo.kafka.properties.sasl.jaas.config",
          "the broker refused the credentials: " + oneLine(cause));
    }
    if (cause instanceof AuthorizationException) {
      return config.error(
          LauncherKey.KAFKA_BOOTSTRAP.key(), "the broker refused access: " + oneLine(cause));
    }
    if (cause instanceof org.apache.kafka.common.errors.TimeoutException) {
      return config.error(
          LauncherKey.KAFKA_BOOTSTRAP.key(),
          "no Kafka broker answered at " + servers + " within " + timeout);
    }
    return config.error(
        LauncherKey.KAFKA_BOOTSTRAP.key(), "the broker at " + servers + ": " + oneLine(cause));
  }

  /** The credentials resolve. */
  void awsCredentials(AwsCredentialsProvider provider) {
    within(
        "siglo.sqs",
        "the AWS credentials",
        () -> {
          try {
            provider.resolveCredentials();
          } catch (SdkClientException e) {
            throw config.error(
                "siglo.sqs",
                "no AWS credentials (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE,"
                    + " or run with a role): "
                    + oneLine(e));
          }
          return null;
        });
  }

  /**
   * @return the queue's URL
   */
  String queueUrl(SqsClient sqs, LauncherKey key, String name) {
    return within(
        key.key(),
        "SQS",
        () -> {
          try {
            return sqs.getQueueUrl(r -> r.queueName(name)).queueUrl();
          } catch (QueueDoesNotExistException e) {
            throw config.error(key.key(), "the queue '" + name + "' does not exist");
          } catch (SqsException | SdkClientException e) {
            throw config.error(key.key(), "SQS refused or cannot be reached: " + oneLine(e));
          }
        });
  }

  /** The queue at this URL exists. */
  void queueExists(SqsClient sqs, LauncherKey key, String url) {
    within(
        key.key(),
        "SQS",
        () -> {
          try {
            sqs.getQueueAttributes(
                GetQueueAttributesRequest.builder()
                    .queueUrl(url)
                    .attributeNames(QueueAttributeName.QUEUE_ARN)
                    .build());
          } catch (QueueDoesNotExistException e) {
            throw config.error(key.key(), "the queue '" + url + "' does not exist");
          } catch (SqsException | SdkClientException e) {
            throw config.error(key.key(), "the queue '" + url + "': " + oneLine(e));
          }
          return null;
        });
  }

  /** Runs a check on a daemon thread, bounded by the check timeout. */
  private <V> V within(String key, String what, Callable<V> check) {
    ExecutorService one =
        Executors.newSingleThreadExecutor(NamedThreads.daemon("siglo-startup-check", false));
    try {
      Future<V> f = one.submit(check);
      return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw config.error(key, what + " did not answer within " + timeout);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof SigloConfigurationException c) {
        throw c;
      }
      throw config.error(key, what + ": " + oneLine(e.getCause()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw config.error(key, "interrupted while checking " + what);
    } finally {
      one.shutdownNow();
    }
  }

  /** The first line of a failure and of its root cause. */
  static String oneLine(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String first = firstLine(e);
    String last = firstLine(root);
    return root == e || first.contains(last) ? first : first + " (" + last + ")";
  }

  private static String firstLine(Throwable e) {
    String m = e.getMessage();
    String text = m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
    return text.lines().findFirst().orElse(text);
  }
}

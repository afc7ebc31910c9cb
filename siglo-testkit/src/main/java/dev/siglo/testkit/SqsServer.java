package dev.siglo.testkit;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.elasticmq.rest.sqs.SQSRestServer;
import org.elasticmq.rest.sqs.SQSRestServerBuilder;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * A real SQS endpoint for tests: ElasticMQ started in-process on a free loopback port, spoken to
 * with the real AWS SDK v2 client (region {@code us-east-1}, dummy static credentials). With the
 * environment variable {@value #ENV_ENDPOINT} set, {@link #startOrExternal()} uses that endpoint.
 */
public final class SqsServer implements AutoCloseable {
  /** The environment variable naming another SQS endpoint for the tests. */
  public static final String ENV_ENDPOINT = "SIGLO_TEST_SQS_ENDPOINT";

  private final URI endpoint;
  private final SQSRestServer server;
  private final Process process;

  private SqsServer(URI endpoint, SQSRestServer server) {
    this(endpoint, server, null);
  }

  private SqsServer(URI endpoint, SQSRestServer server, Process process) {
    this.endpoint = endpoint;
    this.server = server;
    this.process = process;
  }

  /**
   * ElasticMQ in a JVM of its own, as a real queue service is (benchmarks that measure the
   * consumer's own CPU); {@link #close()} stops that JVM. With {@value #ENV_ENDPOINT} set, that
   * endpoint.
   *
   * @return a handle to the new endpoint, serving
   */
  public static SqsServer startInOwnJvmOrExternal() {
    String external = System.getenv(ENV_ENDPOINT);
    if (external != null && !external.isBlank()) {
      return new SqsServer(URI.create(external), null);
    }
    int port = FreePorts.loopback();
    Process process =
        Jvms.start(
            "1g", ProcessBuilder.Redirect.DISCARD, SqsServerMain.class, Integer.toString(port));
    SqsServer started = new SqsServer(URI.create("http://127.0.0.1:" + port), null, process);
    try (SqsClient sqs = started.client()) {
      Awaitility.await("ElasticMQ JVM on port " + port)
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200))
          .ignoreExceptions()
          .until(() -> !process.isAlive() || sqs.listQueues() != null);
    }
    if (!process.isAlive()) {
      throw new IllegalStateException("the ElasticMQ JVM exited at start");
    }
    return started;
  }

  /**
   * @return the endpoint of {@value #ENV_ENDPOINT}, or a new in-process ElasticMQ
   */
  public static SqsServer startOrExternal() {
    String external = System.getenv(ENV_ENDPOINT);
    if (external != null && !external.isBlank()) {
      return new SqsServer(URI.create(external), null);
    }
    SQSRestServer server =
        SQSRestServerBuilder.withInterface("127.0.0.1").withDynamicPort().start();
    int port = server.waitUntilStarted().localAddress().getPort();
    return new SqsServer(URI.create("http://127.0.0.1:" + port), server);
  }

  /**
   * @param sqs a client
   * @param queueUrl a queue
   * @return its messages, visible and in flight (the queue is done when none is left)
   */
  public static long messagesIn(SqsClient sqs, String queueUrl) {
    return sqs
        .getQueueAttributes(
            b ->
                b.queueUrl(queueUrl)
                    .attributeNames(
                        QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
                        QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE))
        .attributes()
        .values()
        .stream()
        .mapToLong(Long::parseLong)
        .sum();
  }

  /**
   * Sends a message with its idempotency key in the {@code idempotency-key} attribute (where SQS
   * consumers look first by default).
   *
   * @param sqs a client
   * @param queueUrl the queue
   * @param key the idempotency key
   * @param body the body
   */
  public static void sendWithKey(SqsClient sqs, String queueUrl, String key, String body) {
    sqs.sendMessage(
        b ->
            b.queueUrl(queueUrl)
                .messageBody(body)
                .messageAttributes(
                    Map.of(
                        "idempotency-key",
                        software.amazon.awssdk.services.sqs.model.MessageAttributeValue.builder()
                            .dataType("String")
                            .stringValue(key)
                            .build())));
  }

  /**
   * @return the endpoint
   */
  public URI endpoint() {
    return endpoint;
  }

  /**
   * @return a new SQS client for this endpoint; close it
   */
  public SqsClient client() {
    return SqsClient.builder()
        .endpointOverride(endpoint)
        .region(Region.US_EAST_1)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
        .build();
  }

  /**
   * Creates a queue.
   *
   * @param name the queue name (end it with {@code .fifo} for a FIFO queue)
   * @param attributes queue attributes (visibility timeout, redrive policy, FIFO)
   * @return the queue URL
   */
  public String createQueue(String name, Map<QueueAttributeName, String> attributes) {
    try (SqsClient sqs = client()) {
      return sqs.createQueue(b -> b.queueName(name).attributes(attributes)).queueUrl();
    }
  }

  /** Stops an in-process ElasticMQ or its own JVM; an external endpoint is left alone. */
  @Override
  public void close() {
    if (server != null) {
      server.stopAndWait();
    }
    if (process != null) {
      try {
        process.getOutputStream().close(); // the server halts when its input closes
        if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
          process.destroyForcibly();
          process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS);
        }
      } catch (java.io.IOException e) {
        process.destroyForcibly();
      } catch (InterruptedException e) {
        process.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public String toString() {
    return "SqsServer["
        + endpoint
        + (server == null && process == null ? ", external" : "")
        + (process != null ? ", own JVM" : "")
        + "]";
  }
}

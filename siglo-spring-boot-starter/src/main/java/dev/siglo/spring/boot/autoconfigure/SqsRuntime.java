package dev.siglo.spring.boot.autoconfigure;

import dev.siglo.consumer.error.SigloConfigurationException;
import dev.siglo.spring.boot.SigloConsumer;
import dev.siglo.spring.boot.SigloProperties;
import dev.siglo.spring.boot.SigloPropertyException;
import dev.siglo.sqs.SigloSqsConsumer;
import java.net.URI;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.SqsClientBuilder;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;

/**
 * Builds {@link SigloSqsConsumer}s on the application's {@link SqsClient} bean when it has one,
 * else on a client of Siglo's own from {@code siglo.sqs.*}, falling back to Spring Cloud AWS's
 * {@code spring.cloud.aws.sqs.endpoint}, {@code spring.cloud.aws.region.static} and {@code
 * spring.cloud.aws.credentials.access-key}/{@code secret-key}, then the SDK's default chains.
 * Queues given by name are looked up, queues given by URL are checked, so a missing queue or
 * dead-letter queue stops the start-up naming its property.
 */
final class SqsRuntime implements BrokerRuntime, AutoCloseable {
  private final ListableBeanFactory beans;
  private final SigloProperties.Sqs sqs;
  private final Binder binder;
  private SqsClient own;

  SqsRuntime(ListableBeanFactory beans, SigloProperties.Sqs sqs, Environment env) {
    this.beans = beans;
    this.sqs = sqs;
    this.binder = Binder.get(env);
  }

  @Override
  public SigloProperties.Broker broker() {
    return SigloProperties.Broker.SQS;
  }

  @Override
  public SigloConsumer create(ConsumerSettings<?> settings) {
    return build(settings);
  }

  private <T> SigloConsumer build(ConsumerSettings<T> s) {
    SigloProperties.Consumer p = s.props();
    SqsClient client = client();
    String url = queueUrl(client, s.property("queue"), p.getQueue());
    SigloSqsConsumer.Builder<T> b =
        s.handler()
            .builder(
                s.decoder(),
                SigloSqsConsumer::builder,
                SigloSqsConsumer::asyncBuilder,
                SigloSqsConsumer::batchBuilder)
            .client(client)
            .queueUrl(url);
    b.threads(
        SigloSqsConsumer.DEFAULT_POLLERS,
        p.getConcurrency(),
        Math.max(SigloSqsConsumer.DEFAULT_MAX_IN_FLIGHT, p.getConcurrency() * 2));
    try {
      b.waitTime(p.getWaitTime());
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new SigloPropertyException(s.property("wait-time"), e.getMessage());
    }
    if (p.getVisibilityTimeout() != null) {
      try {
        b.heartbeat(p.getVisibilityTimeout(), p.getHeartbeatFraction());
      } catch (IllegalArgumentException e) {
        throw new SigloPropertyException(
            s.property("visibility-timeout"),
            e.getMessage() + " (with heartbeat-fraction " + p.getHeartbeatFraction() + ")");
      }
    }
    if (p.getDeadLetterQueue() != null) {
      b.deadLetterQueue(
          queueUrl(client, s.property("dead-letter-queue"), p.getDeadLetterQueue()),
          p.isDeadLetterDeclines());
    }
    SigloConsumer.PauseTracker pauses = new SigloConsumer.PauseTracker();
    SigloSqsConsumer<T> consumer;
    try {
      consumer = s.apply(b, pauses).build();
    } catch (SigloConfigurationException | IllegalArgumentException e) {
      throw new SigloPropertyException(s.property("queue"), e.getMessage());
    }
    return SigloConsumer.of(
        s.name(), broker(), url, s.store(), consumer::start, consumer::close, pauses);
  }

  private synchronized SqsClient client() {
    SqsClient bean = beans.getBeanProvider(SqsClient.class).getIfUnique();
    if (bean != null) {
      return bean;
    }
    if (own == null) {
      SqsClientBuilder b = SqsClient.builder();
      String endpoint =
          sqs.getEndpoint() != null
              ? sqs.getEndpoint()
              : binder.bind("spring.cloud.aws.sqs.endpoint", String.class).orElse(null);
      if (endpoint != null) {
        try {
          b.endpointOverride(URI.create(endpoint));
        } catch (IllegalArgumentException e) {
          throw new SigloPropertyException("siglo.sqs.endpoint", "'" + endpoint + "' is not a URL");
        }
      }
      String region =
          sqs.getRegion() != null
              ? sqs.getRegion()
              : binder.bind("spring.cloud.aws.region.static", String.class).orElse(null);
      if (region != null) {
        b.region(Region.of(region));
      }
      String key =
          binder.bind("spring.cloud.aws.credentials.access-key", String.class).orElse(null);
      String secret =
          binder.bind("spring.cloud.aws.credentials.secret-key", String.class).orElse(null);
      if (key != null && secret != null) {
        b.credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create(key, secret)));
      }
      try {
        own = b.build();
      } catch (SdkException e) {
        throw new SigloPropertyException(
            "siglo.sqs.region", "no AWS region (set it or AWS_REGION): " + e.getMessage());
      }
    }
    return own;
  }

  private static String queueUrl(SqsClient client, String property, String queue) {
    try {
      if (queue.startsWith("http://") || queue.startsWith("https://")) {
        client.getQueueAttributes(
            r -> r.queueUrl(queue).attributeNames(QueueAttributeName.QUEUE_ARN));
        return queue;
      }
      return client.getQueueUrl(r -> r.queueName(queue)).queueUrl();
    } catch (QueueDoesNotExistException e) {
      throw new SigloPropertyException(property, "the queue '" + queue + "' does not exist");
    } catch (SdkException e) {
      throw new SigloPropertyException(
          property, "SQS refused or cannot be reached: " + firstLine(e.getMessage()));
    }
  }

  private static String firstLine(String s) {
    return s == null ? "" : s.lines().findFirst().orElse("");
  }

  /** Closes Siglo's own client, once the consumers stopped (the context closes beans after). */
  @Override
  public synchronized void close() {
    if (own != null) {
      own.close();
      own = null;
    }
  }
}

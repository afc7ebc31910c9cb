package dev.siglo.launcher;

import dev.siglo.sqs.SigloSqsConsumer;
import java.io.PrintStream;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.SqsClientBuilder;

/** Starts a {@link SigloSqsConsumer} from the configuration, after its start-up checks. */
final class SqsLaunch {
  private SqsLaunch() {}

  static <T> SigloLauncher.Running start(
      LauncherConfig config, LaunchSettings<T> settings, PrintStream out) {
    String queue = config.required(LauncherKey.SQS_QUEUE);
    Duration wait = config.duration(LauncherKey.SQS_WAIT);
    boolean declines = config.oneOf(LauncherKey.SQS_DLQ_DECLINES, "true", "false").equals("true");
    double fraction = config.decimal(LauncherKey.SQS_HEARTBEAT_FRACTION, 0.1, 0.9);
    Duration visibility =
        config.get(LauncherKey.SQS_VISIBILITY_TIMEOUT) == null
            ? null
            : config.positiveDuration(LauncherKey.SQS_VISIBILITY_TIMEOUT);
    if (config.get(LauncherKey.SQS_DLQ) != null && config.get(LauncherKey.SQS_DLQ_URL) != null) {
      throw config.error(
          LauncherKey.SQS_DLQ.key(),
          "give the dead-letter queue by name or by URL ("
              + LauncherKey.SQS_DLQ_URL.key()
              + "), not both");
    }
    AwsCredentialsProvider credentials = credentials(config);
    settings.checks().awsCredentials(credentials);
    SqsClient sqs = client(config, credentials);
    LaunchSettings.Started started = new LaunchSettings.Started();
    started.add(sqs);
    try {
      String url = settings.checks().queueUrl(sqs, LauncherKey.SQS_QUEUE, queue);
      String dlq = config.get(LauncherKey.SQS_DLQ_URL);
      if (config.get(LauncherKey.SQS_DLQ) != null) {
        dlq = settings.checks().queueUrl(sqs, LauncherKey.SQS_DLQ, config.get(LauncherKey.SQS_DLQ));
      } else if (dlq != null) {
        settings.checks().queueExists(sqs, LauncherKey.SQS_DLQ_URL, dlq);
      }
      StartupSummary summary =
          new StartupSummary()
              .add(
                  "broker",
                  "sqs at "
                      + (config.get(LauncherKey.SQS_ENDPOINT) == null
                          ? "(AWS default endpoint)"
                          : config.get(LauncherKey.SQS_ENDPOINT))
                      + ", queue "
                      + url)
              .add(
                  "visibility",
                  (visibility == null ? "the queue's" : visibility.toString())
                      + ", extended at "
                      + fraction
                      + " of it; wait "
                      + wait)
              .add(
                  "dead letters",
                  dlq == null
                      ? "(the queue's redrive policy after "
                          + settings.retry().maxDeliveries()
                          + " deliveries)"
                      : dlq + (declines ? ", declines copied" : ", declines not copied"));
      LaunchSettings.Started deps = settings.startDependencies(config, summary);
      started.add(deps);
      int inFlight =
          settings.batching().maxInFlight(null, Math.max(settings.concurrency() * 2, 10));
      SigloSqsConsumer.Builder<T> b =
          settings
              .handler()
              .builder(
                  settings.decoder(),
                  SigloSqsConsumer::builder,
                  SigloSqsConsumer::asyncBuilder,
                  SigloSqsConsumer::batchBuilder)
              .client(sqs)
              .queueUrl(url)
              .waitTime(wait)
              .threads(1, settings.concurrency(), inFlight);
      if (visibility != null) {
        b.heartbeat(visibility, fraction);
      }
      if (dlq != null) {
        b.deadLetterQueue(dlq, declines);
      }
      SigloSqsConsumer<T> consumer = settings.apply(b, deps).build();
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
      throw e instanceof IllegalArgumentException ? config.error("siglo.sqs", e.getMessage()) : e;
    }
  }

  /**
   * The configuration's environment's static keys when it holds them (the launcher's process
   * environment; a test's own map), else the SDK's default chain (profile, role, ...).
   */
  static AwsCredentialsProvider credentials(LauncherConfig config) {
    Map<String, String> env = config.environment();
    String id = env.get("AWS_ACCESS_KEY_ID");
    String secret = env.get("AWS_SECRET_ACCESS_KEY");
    if (id != null && secret != null) {
      return StaticCredentialsProvider.create(AwsBasicCredentials.create(id, secret));
    }
    return DefaultCredentialsProvider.builder().build();
  }

  static SqsClient client(LauncherConfig config, AwsCredentialsProvider credentials) {
    SqsClientBuilder client = SqsClient.builder().credentialsProvider(credentials);
    String endpoint = config.get(LauncherKey.SQS_ENDPOINT);
    if (endpoint != null) {
      try {
        client.endpointOverride(URI.create(endpoint));
      } catch (IllegalArgumentException e) {
        throw config.error(LauncherKey.SQS_ENDPOINT.key(), "'" + endpoint + "' is not a URL");
      }
    }
    String region = config.get(LauncherKey.SQS_REGION);
    if (region == null) {
      region = config.environment().get("AWS_REGION");
    }
    if (region != null) {
      client.region(Region.of(region));
    }
    try {
      return client.build();
    } catch (SdkClientException e) {
      throw config.error(
          LauncherKey.SQS_REGION.key(),
          "no AWS region (set it or AWS_REGION): " + StartupChecks.oneLine(e));
    }
  }
}

package dev.siglo.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.Test;

/** The container launcher; skipped (not failed) where no Docker engine runs, as on CI here. */
class ContainerKafkaIT {

  @Test
  void aContainerBrokerServesWhereDockerRuns() throws Exception {
    assumeTrue(
        ContainerKafka.dockerAvailable(), "no Docker engine: the container launcher is skipped");
    try (ContainerKafka kafka = ContainerKafka.start();
        Admin admin =
            Admin.create(
                Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
      assertThat(admin.describeCluster().nodes().get(60, TimeUnit.SECONDS)).isNotEmpty();
    }
  }
}

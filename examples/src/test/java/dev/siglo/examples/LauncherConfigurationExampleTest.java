package dev.siglo.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.siglo.launcher.LauncherConfig;
import dev.siglo.launcher.LauncherKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The README's launcher configuration is this file verbatim, and the launcher reads it. */
class LauncherConfigurationExampleTest {
  private static final Path FILE = Path.of("src", "main", "resources", "launcher", "payments.yaml");

  @Test
  void theReadmeShowsTheFileAndTheLauncherReadsEveryKeyOfIt() throws Exception {
    String readme = Files.readString(Path.of("..", "README.md"));
    assertThat(readme).contains("```yaml\n" + Files.readString(FILE) + "```");
    LauncherConfig config = LauncherConfig.load(FILE, Map.of("REDIS_PASSWORD", "from-env"));
    assertThat(config.get(LauncherKey.STORE)).isEqualTo("redis");
    assertThat(config.get(LauncherKey.STORE_REDIS_PASSWORD)).isEqualTo("from-env");
    assertThat(config.get(LauncherKey.KEY)).isEqualTo("json-pointer:/orderId");
    assertThat(config.required(LauncherKey.KAFKA_TOPICS)).isEqualTo("orders");
  }
}

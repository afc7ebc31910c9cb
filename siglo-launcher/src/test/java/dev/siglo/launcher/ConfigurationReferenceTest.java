package dev.siglo.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.siglo.kafka.SigloKafkaConsumer;
import dev.siglo.sqs.SigloSqsConsumer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ConfigurationReferenceTest {
  @Test
  void theDocumentedTableIsTheOneTheCodeDefines() throws Exception {
    String doc = Files.readString(Path.of("..", "docs", "CONFIGURATION.md"));
    String generated =
        doc.substring(
            doc.indexOf("<!-- generated:start -->\n") + 25, doc.indexOf("<!-- generated:end -->"));
    assertThat(generated)
        .as(
            "docs/CONFIGURATION.md is out of date; paste LauncherKey.markdownTable() between the markers")
        .isEqualTo(LauncherKey.markdownTable());
  }

  @Test
  void oneConcurrencyKeyServesBothBrokersBecauseTheirDefaultsAgree() {
    assertThat(SigloSqsConsumer.DEFAULT_CONCURRENCY)
        .isEqualTo(SigloKafkaConsumer.DEFAULT_CONCURRENCY)
        .asString()
        .isEqualTo(LauncherKey.CONCURRENCY.defaultValue());
  }
}

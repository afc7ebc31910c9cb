package dev.siglo.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The README's Java snippets are regions of compiled example sources, marked {@code // README:start
 * name} and {@code // README:end name}: this test fails when the README and the code drift apart.
 */
class ReadmeSnippetsTest {
  private static final Pattern REGION =
      Pattern.compile("// README:start (\\S+)\\n(.*?)\\n\\s*// README:end \\1", Pattern.DOTALL);

  @Test
  void everyMarkedExampleRegionAppearsVerbatimInTheReadme() throws IOException {
    String readme = Files.readString(Path.of("..", "README.md"));
    Map<String, String> regions = regions(Path.of("src", "main", "java"));
    regions.putAll(regions(Path.of("src", "test", "java")));
    regions.putAll(regions(Path.of("spring-boot", "src", "main", "java")));

    assertThat(regions)
        .containsKeys(
            "handler",
            "wiring",
            "redis-store",
            "postgres-store",
            "transactional-step",
            "kafka-consumer",
            "kafka-share-consumer",
            "async-handler",
            "async-consumer",
            "virtual-threads",
            "batch-handler",
            "batch-consumer",
            "boot-application");
    for (Map.Entry<String, String> region : regions.entrySet()) {
      assertThat(readme)
          .as("README.md must contain the example region '%s' verbatim", region.getKey())
          .contains("```java\n" + region.getValue() + "\n```");
    }
  }

  @Test
  void theSpringBootSectionShowsTheExamplesDependenciesAndApplicationYmlVerbatim()
      throws IOException {
    String readme = Files.readString(Path.of("..", "README.md"));
    Matcher pom =
        Pattern.compile(
                "<!-- README:start boot-dependencies -->\\n(.*?)\\n\\s*<!-- README:end"
                    + " boot-dependencies -->",
                Pattern.DOTALL)
            .matcher(Files.readString(Path.of("spring-boot", "pom.xml")));
    assertThat(pom.find()).isTrue();
    assertThat(readme).contains("```xml\n" + dedent(pom.group(1)) + "\n```");
    String yml =
        Files.readString(Path.of("spring-boot", "src", "main", "resources", "application.yml"));
    assertThat(readme).contains("```yaml\n" + yml + "```");
  }

  private static Map<String, String> regions(Path root) throws IOException {
    Map<String, String> out = new LinkedHashMap<>();
    List<Path> files = new ArrayList<>();
    try (Stream<Path> walk = Files.walk(root)) {
      walk.filter(p -> p.toString().endsWith(".java")).forEach(files::add);
    }
    for (Path file : files) {
      Matcher m = REGION.matcher(Files.readString(file));
      while (m.find()) {
        out.put(m.group(1), dedent(m.group(2)));
      }
    }
    return out;
  }

  private static String dedent(String block) {
    List<String> lines = block.lines().toList();
    int indent =
        lines.stream()
            .filter(l -> !l.isBlank())
            .mapToInt(l -> l.length() - l.stripLeading().length())
            .min()
            .orElse(0);
    return String.join(
        "\n", lines.stream().map(l -> l.isBlank() ? "" : l.substring(indent)).toList());
  }
}

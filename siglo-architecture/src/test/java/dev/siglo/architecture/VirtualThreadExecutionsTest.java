package dev.siglo.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The build runs the tests tagged {@code virtual-threads} a second time on a JDK 21+ only in the
 * modules that set {@code siglo.virtual-threads.skip} to false (the root pom skips that execution
 * elsewhere, where it would find no test): every module with such a test must set it, or its tagged
 * tests would silently never run on virtual threads.
 */
class VirtualThreadExecutionsTest {
  private static final String TAG = "@Tag(\"virtual-threads\")";
  private static final String RUNS =
      "<siglo.virtual-threads.skip>false</siglo.virtual-threads.skip>";

  @Test
  void everyModuleWithVirtualThreadTestsRunsItsVirtualThreadExecution() throws IOException {
    Path root = Path.of("..").toAbsolutePath().normalize();
    Set<Path> modules = new TreeSet<>();
    try (Stream<Path> files = Files.walk(root)) {
      files
          .filter(f -> f.toString().endsWith(".java"))
          .filter(f -> f.toString().contains("/src/test/java/"))
          .filter(f -> !f.toString().contains("/target/"))
          .filter(VirtualThreadExecutionsTest::tagged)
          .forEach(f -> modules.add(moduleOf(f)));
    }

    assertThat(modules).as("modules with tests tagged virtual-threads").isNotEmpty();
    for (Path module : modules) {
      assertThat(Files.readString(module.resolve("pom.xml")))
          .as(root.relativize(module) + "/pom.xml has tests tagged virtual-threads")
          .contains(RUNS);
    }
  }

  private static boolean tagged(Path file) {
    try {
      return Files.readString(file).contains(TAG);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path moduleOf(Path testFile) {
    Path p = testFile;
    while (!p.getFileName().toString().equals("src")) {
      p = p.getParent();
    }
    return p.getParent();
  }
}

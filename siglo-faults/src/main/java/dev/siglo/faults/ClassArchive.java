package dev.siglo.faults;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A class-data-sharing archive of the consumer JVMs' classes (Kafka, AWS SDK, Jackson, JDBC,
 * Siglo), so that each of the suite's hundred or so consumer starts maps those classes instead of
 * loading and verifying them again. The first consumer started without an archive records one when
 * it exits cleanly ({@code -XX:ArchiveClassesAtExit}; a killed one records nothing, and the next
 * start tries again); once it exists, every consumer starts with it ({@code
 * -XX:SharedArchiveFile}). The JVM checks the archive against its own version and class path and
 * runs without it when they differ. One archive per suite JVM, in a temporary directory.
 * Thread-safe.
 */
final class ClassArchive {
  private static final Path ARCHIVE = archivePath();
  private static final AtomicBoolean RECORDING = new AtomicBoolean();

  private ClassArchive() {}

  /**
   * @return this JVM's class path without its test classes directory (a consumer runs main code
   *     only, and the JVM archives no class path with a non-empty directory on it)
   */
  static String mainClassPath() {
    List<String> entries = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (!(entry.endsWith("test-classes") && Files.isDirectory(Path.of(entry)))) {
        entries.add(entry);
      }
    }
    return String.join(File.pathSeparator, entries);
  }

  /**
   * @param classPath the consumer's class path
   * @return the options for the next consumer JVM: use the archive, or record it, or neither (while
   *     another consumer records it, or when a directory on the class path rules an archive out, as
   *     when the suite runs from its classes directory rather than its jar)
   */
  static List<String> options(String classPath) {
    for (String entry : classPath.split(File.pathSeparator)) {
      if (Files.isDirectory(Path.of(entry))) {
        return List.of();
      }
    }
    if (Files.exists(ARCHIVE)) {
      return List.of("-XX:SharedArchiveFile=" + ARCHIVE);
    }
    if (!RECORDING.compareAndSet(false, true)) {
      return List.of();
    }
    Path recording = ARCHIVE.resolveSibling("recording-" + System.nanoTime() + ".jsa");
    recording.toFile().deleteOnExit();
    return List.of("-XX:ArchiveClassesAtExit=" + recording);
  }

  /**
   * Called when a consumer JVM exited: when it was recording, its archive (if it wrote one) becomes
   * the suite's.
   *
   * @param options the options {@link #options()} gave it
   */
  static void exited(List<String> options) {
    for (String option : options) {
      if (option.startsWith("-XX:ArchiveClassesAtExit=")) {
        Path recording = Path.of(option.substring(option.indexOf('=') + 1));
        try {
          if (Files.exists(recording) && Files.size(recording) > 0) {
            Files.move(recording, ARCHIVE, StandardCopyOption.ATOMIC_MOVE);
            ARCHIVE.toFile().deleteOnExit();
          }
        } catch (IOException e) {
          // no archive: the consumers start without one
        } finally {
          RECORDING.set(false);
        }
      }
    }
  }

  private static Path archivePath() {
    try {
      Path dir = Files.createTempDirectory("siglo-faults-cds");
      dir.toFile().deleteOnExit();
      return dir.resolve("consumer.jsa");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the class archive's directory", e);
    }
  }
}

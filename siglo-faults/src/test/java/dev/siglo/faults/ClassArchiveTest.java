package dev.siglo.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClassArchiveTest {
  @Test
  void aClassPathWithADirectoryGetsNoArchive(@TempDir Path dir) throws Exception {
    Path jar = Files.writeString(dir.resolve("a.jar"), "");
    Path classes = Files.createDirectory(dir.resolve("classes"));

    assertThat(ClassArchive.options(jar + File.pathSeparator + classes)).isEmpty();
  }

  @Test
  void oneConsumerRecordsTheArchiveAndEveryLaterOneStartsWithIt(@TempDir Path dir)
      throws Exception {
    String classPath = Files.writeString(dir.resolve("a.jar"), "").toString();

    List<String> recorder = ClassArchive.options(classPath);
    assertThat(recorder).singleElement().asString().startsWith("-XX:ArchiveClassesAtExit=");
    assertThat(ClassArchive.options(classPath)).as("while it records").isEmpty();
    Path recording = Path.of(recorder.get(0).substring(recorder.get(0).indexOf('=') + 1));
    Files.writeString(recording, "archive");
    ClassArchive.exited(recorder);

    assertThat(ClassArchive.options(classPath))
        .singleElement()
        .asString()
        .startsWith("-XX:SharedArchiveFile=")
        .endsWith("consumer.jsa");
  }
}

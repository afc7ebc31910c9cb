package dev.siglo.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fault-injection suite at CI size: fails when a tx scenario loses or duplicates an effect, an
 * outside scenario loses one, a poison message has an effect, the dead letters differ from the ones
 * expected, or a run does not reach the end.
 */
class ReliabilityIT {
  @Test
  void everyScenarioKeepsItsModesPromise(@TempDir Path dir) throws Exception {
    List<Verdict> verdicts = ReliabilityMain.run(FaultSize.named("ci"), "");
    Path out = dir.resolve("RELIABILITY.md");
    ReliabilityMain.write(out, verdicts, "ci");

    assertThat(verdicts).hasSize(26);
    assertThat(verdicts).allSatisfy(v -> assertThat(v.passed()).as(v.describe()).isTrue());
    assertThat(verdicts)
        .filteredOn(v -> v.mode().equals("tx"))
        .allSatisfy(v -> assertThat(v.duplicated()).as(v.describe()).isZero());
    assertThat(Files.readString(out)).contains("| consumer SIGKILL | tx |");
  }
}

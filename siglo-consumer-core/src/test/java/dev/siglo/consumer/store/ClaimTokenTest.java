package dev.siglo.consumer.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ClaimTokenTest {
  @Test
  void tokensAre32HexCharactersAndNeverRepeatInAProcess() {
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 200_000; i++) {
      String t = ClaimToken.random().value();
      assertThat(t).matches("[0-9a-f]{32}");
      assertThat(seen.add(t)).as("token %s repeated", t).isTrue();
    }
  }
}

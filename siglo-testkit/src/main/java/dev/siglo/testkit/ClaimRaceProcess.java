package dev.siglo.testkit;

import dev.siglo.consumer.key.IdempotencyKeys;
import dev.siglo.consumer.store.ClaimRequest;
import dev.siglo.consumer.store.ClaimStatus;
import dev.siglo.consumer.store.IdempotencyStore;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * The child process of {@link MultiProcessClaimRace}: opens a store, says {@code ready}, waits for
 * {@code go} on standard input, claims every key (in its own shuffled order, several threads),
 * writes the keys it got {@code CLAIMED} for to a file and says {@code done <count>}. It exits when
 * its standard input closes, so it never outlives the test.
 */
public final class ClaimRaceProcess {
  private ClaimRaceProcess() {}

  /**
   * @param args factory class, connection, namespace, key count, output file, seed
   * @throws Exception on any failure (the parent sees a non-zero exit)
   */
  public static void main(String[] args) throws Exception {
    StoreFactory factory =
        (StoreFactory) Class.forName(args[0]).getDeclaredConstructor().newInstance();
    String connection = args[1];
    IdempotencyKeys keys = IdempotencyKeys.custom().namespace(args[2]).build();
    int count = Integer.parseInt(args[3]);
    Path out = Path.of(args[4]);
    long seed = Long.parseLong(args[5]);
    List<String> order = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      order.add(keys.key("race-" + i));
    }
    Collections.shuffle(order, new Random(seed));
    try (IdempotencyStore store = factory.open(connection);
        BufferedReader in =
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      System.out.println("ready");
      System.out.flush();
      if (!"go".equals(in.readLine())) {
        return;
      }
      List<String> claimed = Collections.synchronizedList(new ArrayList<>());
      int threads = 4;
      List<Thread> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int first = t;
        Thread w =
            new Thread(
                () -> {
                  for (int i = first; i < order.size(); i += threads) {
                    String k = order.get(i);
                    if (store.claim(new ClaimRequest(k, null, Duration.ofMinutes(5))).status()
                        == ClaimStatus.CLAIMED) {
                      claimed.add(k);
                    }
                  }
                },
                "claim-race-" + t);
        w.start();
        workers.add(w);
      }
      for (Thread w : workers) {
        w.join();
      }
      Files.write(out, claimed, StandardCharsets.UTF_8);
      System.out.println("done " + claimed.size());
      System.out.flush();
      in.readLine();
    }
  }
}

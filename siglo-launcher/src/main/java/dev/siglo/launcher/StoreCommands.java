package dev.siglo.launcher;

import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.consumer.store.Outcome;
import dev.siglo.consumer.store.StoredRecord;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code siglo inspect} and {@code siglo forget}: an operator's view of one key's record in the
 * store a consumer's configuration names, and the deletion of a completed record or cached decline.
 */
final class StoreCommands {
  private static final Logger AUDIT = LoggerFactory.getLogger("dev.siglo.audit");

  private StoreCommands() {}

  /** The configuration and the key, shared by both commands. */
  static final class KeyOptions {
    @Option(
        names = {"-c", "--config"},
        required = true,
        paramLabel = "<config>",
        description = "the consumer's configuration file (its store and key namespace)")
    Path config;

    @Option(
        names = "--stored-key",
        description = "<key> is the key as stored (ff:idemp:...), not as the messages carry it")
    boolean stored;

    @Parameters(
        paramLabel = "<key>",
        description = "the idempotency key as the messages carry it (order-1234)")
    String key;

    /** The key as the store holds it. */
    String storeKey(LauncherConfig c) {
      return stored ? key : SigloLauncher.keys(c).key(key);
    }

    /** The store, checked; memory is refused (it lives in the consumer's process). */
    IdempotencyStore open(LauncherConfig c) {
      if ("memory".equals(c.oneOf(LauncherKey.STORE, "memory", "redis", "postgres"))) {
        throw c.error(
            c.name(LauncherKey.STORE),
            "the in-memory store lives inside the consumer's process; inspect and forget need"
                + " redis or postgres");
      }
      return LauncherStores.openChecked(c);
    }
  }

  /** {@code siglo inspect}. */
  @Command(
      name = "inspect",
      mixinStandardHelpOptions = true,
      description = {
        "Shows one key's record: state, owner token, lease end, retention end, deliveries,"
            + " takeovers and the stored outcome.",
        "Exits 0 when the store holds a record for the key, 1 when it holds none."
      })
  static final class Inspect implements Callable<Integer> {
    @Mixin KeyOptions options;
    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      LauncherConfig c = LauncherConfig.load(options.config, System.getenv());
      String key = options.storeKey(c);
      try (IdempotencyStore store = options.open(c)) {
        PrintWriter out = spec.commandLine().getOut();
        var found = store.inspect(key);
        if (found.isEmpty()) {
          out.println("no record for " + key);
          return 1;
        }
        print(out, key, found.get());
        return 0;
      }
    }
  }

  /** {@code siglo forget}. */
  @Command(
      name = "forget",
      mixinStandardHelpOptions = true,
      description = {
        "Deletes one key's completed record or cached decline, after confirmation, so that the"
            + " next message with the key runs the handler again. A live claim is never deleted.",
        "Exits 0 when the record was deleted, 1 when there was none, it is held, or the answer was"
            + " not yes."
      })
  static final class Forget implements Callable<Integer> {
    @Mixin KeyOptions options;
    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Option(
        names = {"-y", "--yes"},
        description = "do not ask for confirmation")
    boolean yes;

    @Option(names = "--operator", description = "who forgets, for the log (default: the user name)")
    String operator = System.getProperty("user.name", "unknown");

    @Override
    public Integer call() throws IOException {
      LauncherConfig c = LauncherConfig.load(options.config, System.getenv());
      String key = options.storeKey(c);
      PrintWriter out = spec.commandLine().getOut();
      try (IdempotencyStore store = options.open(c)) {
        var found = store.inspect(key);
        if (found.isEmpty()) {
          out.println("no record for " + key);
          return 1;
        }
        print(out, key, found.get());
        if (!yes) {
          out.print("forget it? the next message with this key runs the handler again [y/N] ");
          out.flush();
          String answer =
              new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))
                  .readLine();
          if (answer == null || !answer.trim().toLowerCase(Locale.ROOT).startsWith("y")) {
            out.println("not forgotten");
            return 1;
          }
        }
        StoredRecord.Removal removal = store.remove(key);
        String line =
            switch (removal) {
              case REMOVED -> "forgot " + key;
              case ABSENT -> "no record for " + key + " any more";
              case HELD ->
                  "not forgotten: a live claim holds " + key + " (a handler may be running)";
            };
        out.println(line);
        AUDIT.info(
            "{} by {} at {} (the record was {})",
            line,
            operator,
            Instant.now(),
            found.get().state());
        return removal == StoredRecord.Removal.REMOVED ? 0 : 1;
      }
    }
  }

  /** Prints a record, one field per line, times with how far away they are. */
  static void print(PrintWriter out, String key, StoredRecord r) {
    StartupSummary rows = new StartupSummary();
    rows.add("key", key)
        .add("state", r.state() + (r.live() ? "" : " (no longer in effect: acts as absent)"))
        .add("owner token", r.ownerToken() == null ? "-" : r.ownerToken())
        .add("lease end", when(r.leaseEnd(), r.readAt()))
        .add("retention end", when(r.retentionEnd(), r.readAt()))
        .add("deliveries", String.valueOf(r.deliveries()))
        .add("takeovers", String.valueOf(r.takeovers()))
        .add("outcome", r.outcome().map(StoreCommands::outcome).orElse("-"));
    out.print(rows.render(null));
    out.flush();
  }

  private static String when(Instant at, Instant now) {
    if (at == null) {
      return "-";
    }
    Duration d = Duration.between(now, at);
    String rel =
        d.isNegative()
            ? "ended " + d.negated().toSeconds() + " s ago"
            : "in " + d.toSeconds() + " s";
    return at + " (" + rel + ")";
  }

  private static String outcome(Outcome o) {
    if (o instanceof Outcome.Declined d) {
      return "declined: "
          + d.errorType()
          + (d.message().isEmpty() ? "" : ": " + d.message())
          + (d.attributes().isEmpty() ? "" : " " + d.attributes());
    }
    return "success: " + ((Outcome.Success) o).resultJson();
  }
}

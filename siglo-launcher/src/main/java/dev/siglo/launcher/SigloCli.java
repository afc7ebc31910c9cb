package dev.siglo.launcher;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * The {@code siglo} command line, the main class of the launcher's jar: {@code siglo run <config>}
 * runs a consumer; {@code siglo inspect} shows a key's record and {@code siglo forget} deletes a
 * completed record or cached decline; {@code siglo redrive} sends dead letters back. Every command
 * has {@code --help}. Exit codes: 0 done, 1 failed while running, 2 could not start (bad arguments,
 * configuration or dependency).
 */
@Command(
    name = "siglo",
    mixinStandardHelpOptions = true,
    versionProvider = SigloCli.Version.class,
    description = "Runs and operates Siglo consumers.",
    subcommands = {
      SigloCli.Run.class,
      StoreCommands.Inspect.class,
      StoreCommands.Forget.class,
      RedriveCommand.class,
      CommandLine.HelpCommand.class
    })
public final class SigloCli implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /**
   * @param args the command and its arguments
   */
  public static void main(String[] args) {
    // 1.0's form, java -jar siglo-launcher-all.jar consumer.properties, still means run
    boolean bare =
        args.length == 1
            && !args[0].startsWith("-")
            && !new CommandLine(new SigloCli()).getSubcommands().containsKey(args[0]);
    System.exit(bare ? execute("run", args[0]) : execute(args));
  }

  /**
   * Runs a command without exiting the JVM.
   *
   * @param args the command and its arguments
   * @return the exit code
   */
  public static int execute(String... args) {
    return execute(System.out, System.err, args);
  }

  static int execute(PrintStream out, PrintStream err, String... args) {
    CommandLine cli = new CommandLine(new SigloCli());
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    cli.setExitCodeExceptionMapper(e -> 2);
    cli.setExecutionExceptionHandler(
        (e, line, parsed) -> {
          err.println("siglo: " + StartupChecks.oneLine(e));
          return 2;
        });
    cli.getCommandSpec().exitCodeOnInvalidInput(2);
    cli.setParameterExceptionHandler(
        (e, a) -> {
          err.println("siglo: " + e.getMessage());
          e.getCommandLine().usage(err);
          return 2;
        });
    return cli.execute(args);
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** {@code siglo run <config>}. */
  @Command(
      name = "run",
      mixinStandardHelpOptions = true,
      description = {
        "Runs the consumer a configuration file describes until SIGTERM.",
        "Checks every dependency first and exits 2 with one line naming the key when one fails;"
            + " prints a summary of what runs; SIGTERM drains, commits or deletes, exits 0."
      })
  static final class Run implements Callable<Integer> {
    @Parameters(paramLabel = "<config>", description = "a .properties, .yaml or .yml file")
    Path config;

    @Override
    public Integer call() {
      return SigloLauncher.run(config, System.out, System.err);
    }
  }

  /** The version from the jar's manifest. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = SigloCli.class.getPackage().getImplementationVersion();
      return new String[] {"siglo " + (v == null ? "(development build)" : v)};
    }
  }
}

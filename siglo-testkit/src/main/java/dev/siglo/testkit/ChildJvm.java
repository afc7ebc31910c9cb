package dev.siglo.testkit;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of a JVM a test starts (a server, a consumer under test, a {@code siglo}
 * process): this JVM's {@code java}, this JVM's JIT and collector flags (the build gives test JVMs
 * {@code -XX:TieredStopAtLevel=1 -XX:+UseSerialGC}, which cost less CPU in a JVM that lives seconds
 * to minutes; a JVM started outside the build's tests gets the JVM's defaults), the caller's
 * options, this JVM's class path and the main class. Stateless; thread-safe.
 */
public final class ChildJvm {
  private static final List<String> INHERITED =
      List.of("-XX:TieredStopAtLevel=", "-XX:+UseSerialGC");

  private ChildJvm() {}

  /**
   * @param main the main class, on this JVM's class path
   * @param options JVM options placed before the class path (for example {@code -Xmx256m})
   * @return the command, to which the caller appends the main's arguments
   */
  public static List<String> command(Class<?> main, String... options) {
    return commandOn(System.getProperty("java.class.path"), main, options);
  }

  /**
   * @param classPath the child's class path
   * @param main the main class, on {@code classPath}
   * @param options JVM options placed before the class path
   * @return the command, to which the caller appends the main's arguments
   */
  public static List<String> commandOn(String classPath, Class<?> main, String... options) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(inheritedFlags());
    command.addAll(List.of(options));
    command.add("-cp");
    command.add(classPath);
    command.add(main.getName());
    return command;
  }

  /**
   * @return this JVM's JIT and collector flags that a child takes over
   */
  static List<String> inheritedFlags() {
    List<String> out = new ArrayList<>();
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (INHERITED.stream().anyMatch(arg::startsWith)) {
        out.add(arg);
      }
    }
    return out;
  }
}

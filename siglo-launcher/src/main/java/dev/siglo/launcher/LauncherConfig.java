package dev.siglo.launcher;

import dev.siglo.consumer.error.SigloConfigurationException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The launcher's configuration: a properties or YAML file ({@link ConfigFile}), each key
 * overridable by its environment variable ({@link LauncherKey#environmentVariable()}). A value may
 * be {@code ${env:NAME}} (read from the environment) or {@code ${file:/path}} (read from a file,
 * trimmed), so that secrets need not be written in the file. Unknown {@code siglo.*} keys are
 * errors; every error names the file, the key and the problem. Immutable.
 */
public final class LauncherConfig {
  private static final String CLASSIFICATION = "siglo.classification.";
  private static final String KAFKA_PROPERTIES = "siglo.kafka.properties.";
  private static final String KAFKA_PROPERTIES_ENV = "SIGLO_KAFKA_PROPERTIES_";
  private static final Set<String> KNOWN =
      Arrays.stream(LauncherKey.values())
          .flatMap(k -> Stream.of(k.key(), k.alias()))
          .filter(Objects::nonNull)
          .collect(Collectors.toSet());

  private final String source;
  private final Map<String, ConfigFile.Entry> entries;
  private final Map<String, String> environment;

  private LauncherConfig(
      String source, Map<String, ConfigFile.Entry> entries, Map<String, String> environment) {
    this.source = source;
    this.entries = entries;
    this.environment = Map.copyOf(environment);
    for (String key : entries.keySet()) {
      if (key.startsWith("siglo.")
          && !KNOWN.contains(key)
          && !key.startsWith(CLASSIFICATION)
          && !(key.startsWith(KAFKA_PROPERTIES) && key.length() > KAFKA_PROPERTIES.length())) {
        throw error(key, "unknown key (see docs/CONFIGURATION.md)");
      }
    }
    for (LauncherKey k : LauncherKey.values()) {
      ConfigFile.Entry both = k.alias() == null ? null : entries.get(k.alias());
      if (both != null && entries.containsKey(k.key())) {
        throw error(
            k.key(),
            "set twice, as "
                + k.alias()
                + " on line "
                + both.line()
                + " and as "
                + k.key()
                + " on line "
                + entries.get(k.key()).line()
                + " (remove one)");
      }
    }
  }

  /**
   * @param file a properties file, or a YAML file ({@code .yaml}, {@code .yml}) whose nested keys
   *     and lists are read as dotted keys and comma-separated values
   * @param environment the environment (overrides)
   * @return the configuration
   * @throws SigloConfigurationException when the file cannot be read, sets a key twice or holds an
   *     unknown key
   */
  public static LauncherConfig load(Path file, Map<String, String> environment) {
    return new LauncherConfig(file.toString(), ConfigFile.read(file), environment);
  }

  /**
   * @return the environment the configuration was read with (for the AWS credentials and region)
   */
  public Map<String, String> environment() {
    return environment;
  }

  /**
   * @return the file this came from
   */
  public String source() {
    return source;
  }

  /**
   * @return the {@code siglo.classification.*} properties, for {@code ErrorClassifier}
   */
  public Properties classification() {
    Properties out = new Properties();
    entries.forEach(
        (key, entry) -> {
          if (key.startsWith(CLASSIFICATION)) {
            out.setProperty(key, resolve(key, entry.value()));
          }
        });
    return out;
  }

  /**
   * @return the {@code siglo.kafka.properties.*} properties without the prefix, then those of the
   *     {@code SIGLO_KAFKA_PROPERTIES_*} environment variables (which win), placeholders resolved
   */
  public Map<String, String> kafkaProperties() {
    Map<String, String> out = new TreeMap<>();
    entries.forEach(
        (key, entry) -> {
          if (key.startsWith(KAFKA_PROPERTIES)) {
            out.put(key.substring(KAFKA_PROPERTIES.length()), resolve(key, entry.value()));
          }
        });
    environment.forEach(
        (name, value) -> {
          if (name.startsWith(KAFKA_PROPERTIES_ENV)
              && name.length() > KAFKA_PROPERTIES_ENV.length()) {
            String property =
                name.substring(KAFKA_PROPERTIES_ENV.length())
                    .toLowerCase(Locale.ROOT)
                    .replace('_', '.');
            out.put(property, resolve(name, value));
          }
        });
    return out;
  }

  /**
   * @param name a Kafka client property
   * @return whether its value is a secret (a password, a secret, a JAAS configuration)
   */
  public static boolean secretKafkaProperty(String name) {
    String n = name.toLowerCase(Locale.ROOT);
    return n.contains("password")
        || n.contains("secret")
        || n.contains("jaas")
        || n.endsWith(".key");
  }

  /**
   * @param key a key
   * @return its value: the environment variable, else the file, else the default (may be null)
   */
  public String get(LauncherKey key) {
    String fromEnv = environment.get(key.environmentVariable());
    if (fromEnv == null && key.alias() != null) {
      fromEnv = environment.get(key.alias().toUpperCase(Locale.ROOT).replace('.', '_'));
    }
    if (fromEnv != null && !fromEnv.isBlank()) {
      return resolve(name(key), fromEnv.trim());
    }
    ConfigFile.Entry entry = entries.get(key.key());
    if (entry == null && key.alias() != null) {
      entry = entries.get(key.alias());
    }
    if (entry != null && !entry.value().isBlank()) {
      return resolve(name(key), entry.value().trim());
    }
    String fallback = key.defaultValue();
    return fallback == null || fallback.startsWith("(") ? null : fallback;
  }

  /**
   * @param key a key
   * @return whether the file or the environment sets it (rather than its default)
   */
  public boolean isSet(LauncherKey key) {
    String d = key.defaultValue();
    String value = get(key);
    return value != null && (d == null || d.startsWith("(") || !value.equals(d));
  }

  /**
   * @param key a key
   * @return the name it was given under: its alias when the file or the environment used that
   */
  public String name(LauncherKey key) {
    String alias = key.alias();
    if (alias != null
        && !entries.containsKey(key.key())
        && !environment.containsKey(key.environmentVariable())
        && (entries.containsKey(alias)
            || environment.containsKey(alias.toUpperCase(Locale.ROOT).replace('.', '_')))) {
      return alias;
    }
    return key.key();
  }

  /** Resolves {@code ${env:NAME}} and {@code ${file:/path}}. */
  private String resolve(String key, String value) {
    if (!value.startsWith("${") || !value.endsWith("}")) {
      return value;
    }
    String inner = value.substring(2, value.length() - 1);
    if (inner.startsWith("env:")) {
      String name = inner.substring(4);
      String v = environment.get(name);
      if (v == null || v.isBlank()) {
        throw error(key, "the environment variable " + name + " is not set");
      }
      return v.trim();
    }
    if (inner.startsWith("file:")) {
      Path path = Path.of(inner.substring(5));
      try {
        return Files.readString(path, StandardCharsets.UTF_8).trim();
      } catch (IOException e) {
        throw error(key, "cannot read " + path + " (" + e.getClass().getSimpleName() + ")");
      }
    }
    throw error(key, "'" + value + "': a placeholder is ${env:NAME} or ${file:/path}");
  }

  /**
   * @param key a required key
   * @return its value
   * @throws SigloConfigurationException naming the key when it is missing
   */
  public String required(LauncherKey key) {
    String value = get(key);
    if (value == null) {
      throw error(name(key), "is required (or set " + key.environmentVariable() + ")");
    }
    return value;
  }

  /**
   * @param key a key holding a positive whole number
   * @return the number
   */
  public int positiveInt(LauncherKey key) {
    String value = required(key);
    try {
      int n = Integer.parseInt(value);
      if (n < 1) {
        throw error(name(key), "'" + value + "' must be at least 1");
      }
      return n;
    } catch (NumberFormatException e) {
      throw error(name(key), "'" + value + "' is not a whole number");
    }
  }

  /**
   * @param key a key holding a whole number, 0 or more
   * @return the number
   */
  public int nonNegativeInt(LauncherKey key) {
    String value = required(key);
    try {
      int n = Integer.parseInt(value);
      if (n < 0) {
        throw error(name(key), "'" + value + "' must not be negative");
      }
      return n;
    } catch (NumberFormatException e) {
      throw error(name(key), "'" + value + "' is not a whole number");
    }
  }

  /**
   * @param key a key holding a decimal number
   * @param min the smallest allowed
   * @param max the largest allowed
   * @return the number
   */
  public double decimal(LauncherKey key, double min, double max) {
    String value = required(key);
    try {
      double d = Double.parseDouble(value);
      if (!(d >= min && d <= max)) {
        throw error(name(key), "'" + value + "' must be " + min + " to " + max);
      }
      return d;
    } catch (NumberFormatException e) {
      throw error(name(key), "'" + value + "' is not a number");
    }
  }

  /**
   * @param key a key holding a positive ISO-8601 duration
   * @return the duration
   */
  public Duration positiveDuration(LauncherKey key) {
    Duration d = duration(key);
    if (d.isNegative() || d.isZero()) {
      throw error(name(key), "'" + d + "' must be positive");
    }
    return d;
  }

  /**
   * @param key a key holding an ISO-8601 duration
   * @return the duration
   */
  public Duration duration(LauncherKey key) {
    String value = required(key);
    try {
      return Duration.parse(value);
    } catch (DateTimeParseException e) {
      throw error(name(key), "'" + value + "' is not an ISO-8601 duration such as PT5S");
    }
  }

  /**
   * @param key a key holding one of several words
   * @param allowed the words
   * @return the value, lowercased
   */
  public String oneOf(LauncherKey key, String... allowed) {
    String value = required(key).toLowerCase(Locale.ROOT);
    if (!Arrays.asList(allowed).contains(value)) {
      throw error(name(key), "'" + value + "' must be one of " + String.join(", ", allowed));
    }
    return value;
  }

  /**
   * @param key the key at fault
   * @param problem what is wrong
   * @return an error naming the file, the key and the problem
   */
  public SigloConfigurationException error(String key, String problem) {
    return new SigloConfigurationException(source + ": " + key + ": " + problem);
  }
}

package dev.siglo.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.siglo.consumer.error.SigloConfigurationException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The launcher's configuration: a properties file, each key overridable by its environment variable
 * ({@link LauncherKey#environmentVariable()}). Unknown {@code siglo.*} keys are errors; every error
 * names the file, the key and the problem. Immutable.
 */
public final class LauncherConfig {
  private static final String CLASSIFICATION = "siglo.classification.";
  private static final Set<String> KNOWN =
      Arrays.stream(LauncherKey.values()).map(LauncherKey::key).collect(Collectors.toSet());

  private final String source;
  private final Properties properties;
  private final Map<String, String> environment;

  private LauncherConfig(String source, Properties properties, Map<String, String> environment) {
    this.source = source;
    this.properties = properties;
    this.environment = Map.copyOf(environment);
    for (String key : properties.stringPropertyNames()) {
      if (key.startsWith("siglo.") && !KNOWN.contains(key) && !key.startsWith(CLASSIFICATION)) {
        throw error(key, "unknown key (see docs/CONFIGURATION.md)");
      }
    }
  }

  /**
   * @param file a properties file, or a YAML file ({@code .yaml}, {@code .yml}) whose nested keys
   *     and lists are read as dotted keys and comma-separated values
   * @param environment the environment (overrides)
   * @return the configuration
   * @throws SigloConfigurationException when the file cannot be read or holds an unknown key
   */
  public static LauncherConfig load(Path file, Map<String, String> environment) {
    Properties p = new Properties();
    String name = file.getFileName().toString();
    try (InputStream in = Files.newInputStream(file)) {
      if (name.endsWith(".yaml") || name.endsWith(".yml")) {
        flatten("", new ObjectMapper(new YAMLFactory()).readTree(in), p);
      } else {
        p.load(in);
      }
    } catch (IOException | IllegalArgumentException e) {
      throw new SigloConfigurationException(
          file + ": cannot read the configuration: " + e.getMessage(), e);
    }
    return new LauncherConfig(file.toString(), p, environment);
  }

  /** YAML maps become dotted keys, lists comma-separated values. */
  private static void flatten(String prefix, JsonNode node, Properties out) {
    if (node == null || node.isNull()) {
      return;
    }
    if (node.isObject()) {
      node.properties()
          .forEach(
              e ->
                  flatten(
                      prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey(),
                      e.getValue(),
                      out));
    } else if (node.isArray()) {
      StringBuilder sb = new StringBuilder();
      node.forEach(v -> sb.append(sb.length() == 0 ? "" : ",").append(v.asText()));
      out.setProperty(prefix, sb.toString());
    } else {
      out.setProperty(prefix, node.asText());
    }
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
    for (String key : properties.stringPropertyNames()) {
      if (key.startsWith(CLASSIFICATION)) {
        out.setProperty(key, properties.getProperty(key));
      }
    }
    return out;
  }

  /**
   * @param key a key
   * @return its value: the environment variable, else the file, else the default (may be null)
   */
  public String get(LauncherKey key) {
    String fromEnv = environment.get(key.environmentVariable());
    if (fromEnv != null && !fromEnv.isBlank()) {
      return fromEnv.trim();
    }
    String fromFile = properties.getProperty(key.key());
    if (fromFile != null && !fromFile.isBlank()) {
      return fromFile.trim();
    }
    String fallback = key.defaultValue();
    return fallback == null || fallback.startsWith("(") ? null : fallback;
  }

  /**
   * @param key a required key
   * @return its value
   * @throws SigloConfigurationException naming the key when it is missing
   */
  public String required(LauncherKey key) {
    String value = get(key);
    if (value == null) {
      throw error(key.key(), "is required (or set " + key.environmentVariable() + ")");
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
        throw error(key.key(), "'" + value + "' must be at least 1");
      }
      return n;
    } catch (NumberFormatException e) {
      throw error(key.key(), "'" + value + "' is not a whole number");
    }
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
      throw error(key.key(), "'" + value + "' is not an ISO-8601 duration such as PT5S");
    }
  }

  /**
   * @param key a key holding one of several words
   * @param allowed the words
   * @return the value, lowercased
   */
  public String oneOf(LauncherKey key, String... allowed) {
    String value = required(key).toLowerCase(java.util.Locale.ROOT);
    if (!Arrays.asList(allowed).contains(value)) {
      throw error(key.key(), "'" + value + "' must be one of " + String.join(", ", allowed));
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

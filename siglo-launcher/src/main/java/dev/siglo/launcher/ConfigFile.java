package dev.siglo.launcher;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.siglo.consumer.error.SigloConfigurationException;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * Reads a configuration file into flat dotted keys, remembering the line each came from: a
 * properties file, or YAML ({@code .yaml}, {@code .yml}) whose nested maps become dotted keys and
 * lists comma-separated values. A key given twice (in YAML, the same key twice in one map, or the
 * same dotted key written nested and flat; in properties, the same key on two lines) is an error
 * naming both lines: a YAML parser's last-one-wins would otherwise silently drop the first.
 */
final class ConfigFile {
  private ConfigFile() {}

  /** A value and the line it was read from. */
  record Entry(String value, int line) {}

  /**
   * @param file the file
   * @return its keys in file order
   * @throws SigloConfigurationException when it cannot be read or sets a key twice
   */
  static Map<String, Entry> read(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new SigloConfigurationException(
          file + ": cannot read the configuration: " + e.getMessage(), e);
    }
    String name = file.getFileName().toString();
    try {
      return name.endsWith(".yaml") || name.endsWith(".yml")
          ? yaml(file, text)
          : properties(file, text);
    } catch (IOException | IllegalArgumentException e) {
      throw new SigloConfigurationException(
          file
              + ": cannot read the configuration: "
              + e.getMessage().lines().findFirst().orElse(""),
          e);
    }
  }

  private static Map<String, Entry> yaml(Path file, String text) throws IOException {
    Map<String, Entry> out = new LinkedHashMap<>();
    try (JsonParser p = new YAMLFactory().createParser(text)) {
      if (p.nextToken() == JsonToken.START_OBJECT) {
        object(file, p, "", out);
      }
    }
    return out;
  }

  /** Reads the object whose START_OBJECT was just read. */
  private static void object(Path file, JsonParser p, String prefix, Map<String, Entry> out)
      throws IOException {
    Map<String, Integer> seen = new LinkedHashMap<>();
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      int line = line(p.currentTokenLocation());
      String field = p.currentName();
      Integer before = seen.putIfAbsent(field, line);
      String key = prefix.isEmpty() ? field : prefix + "." + field;
      if (before != null) {
        throw twice(file, key, before, line);
      }
      JsonToken value = p.nextToken();
      if (value == JsonToken.START_OBJECT) {
        object(file, p, key, out);
      } else if (value == JsonToken.START_ARRAY) {
        List<String> items = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
          if (p.currentToken().isStructStart()) {
            throw new SigloConfigurationException(
                file + ": " + key + ": line " + line + ": a list holds plain values only");
          }
          items.add(p.getText());
        }
        put(file, out, key, String.join(",", items), line);
      } else if (value != JsonToken.VALUE_NULL) {
        put(file, out, key, p.getText(), line);
      }
    }
  }

  private static Map<String, Entry> properties(Path file, String text) throws IOException {
    List<String> order = new ArrayList<>();
    Map<String, String> values = new LinkedHashMap<>();
    Properties reader =
        new Properties() {
          private static final long serialVersionUID = 1L;

          @Override
          public synchronized Object put(Object key, Object value) {
            order.add((String) key);
            values.put((String) key, (String) value);
            return super.put(key, value);
          }
        };
    try (Reader in = new StringReader(text)) {
      reader.load(in);
    }
    Map<String, Entry> out = new LinkedHashMap<>();
    List<String> lines = text.lines().toList();
    Map<String, Integer> counted = new LinkedHashMap<>();
    for (String key : order) {
      List<Integer> at = linesOf(lines, key);
      int n = counted.merge(key, 1, Integer::sum);
      if (n > 1) {
        throw twice(file, key, at.get(0), at.size() > 1 ? at.get(1) : 0);
      }
      out.put(key, new Entry(values.get(key), at.isEmpty() ? 0 : at.get(0)));
    }
    return Collections.unmodifiableMap(out);
  }

  /** The (1-based) lines that begin with the key, for naming where a key was set. */
  private static List<Integer> linesOf(List<String> lines, String key) {
    Pattern start = Pattern.compile("^\\s*" + Pattern.quote(key) + "\\s*[=:\\s]");
    List<Integer> at = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (start.matcher(lines.get(i) + " ").find()) {
        at.add(i + 1);
      }
    }
    return at;
  }

  private static void put(Path file, Map<String, Entry> out, String key, String value, int line) {
    Entry before = out.putIfAbsent(key, new Entry(value, line));
    if (before != null) {
      throw twice(file, key, before.line(), line);
    }
  }

  private static SigloConfigurationException twice(Path file, String key, int first, int second) {
    return new SigloConfigurationException(
        file
            + ": "
            + key
            + ": set twice, on line "
            + first
            + " and on line "
            + second
            + " (remove one)");
  }

  private static int line(JsonLocation location) {
    return location.getLineNr();
  }
}

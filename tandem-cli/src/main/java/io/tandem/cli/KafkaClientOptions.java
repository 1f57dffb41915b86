package io.tandem.cli;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import picocli.CommandLine.Option;

/**
 * Kafka client settings beyond the bootstrap servers (TLS, SASL, client tuning): a Java properties
 * file with {@code --kafka-config}, single settings with {@code --kafka-property}, which win.
 * Values are never printed: a file or an option may hold a password or a private key.
 */
final class KafkaClientOptions {
  @Option(
      names = "--kafka-property",
      paramLabel = "KEY=VALUE",
      description =
          "A Kafka client setting, e.g. security.protocol=SSL; repeatable, wins over"
              + " --kafka-config. Secrets belong in --kafka-config, not on the command line.")
  List<String> properties = new ArrayList<>();

  @Option(
      names = "--kafka-config",
      paramLabel = "FILE",
      description =
          "A Java properties file of Kafka client settings (TLS, SASL: docs/security.md);"
              + " the way to keep passwords off the command line.")
  Path configFile;

  /** Whether any setting was given. */
  boolean isEmpty() {
    return properties.isEmpty() && configFile == null;
  }

  /**
   * The settings of the file, then of each {@code --kafka-property}, in that order.
   *
   * @throws IllegalArgumentException naming the option and what is wrong, never a value
   */
  Map<String, String> settings() {
    Map<String, String> settings = new LinkedHashMap<>();
    if (configFile != null) {
      settings.putAll(read(configFile));
    }
    for (String property : properties) {
      int equals = property.indexOf('=');
      if (equals < 0) {
        throw new IllegalArgumentException(
            "--kafka-property needs KEY=VALUE, e.g. security.protocol=SSL; one was given without"
                + " '=' (not shown: it may hold a secret)");
      }
      String key = property.substring(0, equals).trim();
      if (key.isEmpty()) {
        throw new IllegalArgumentException(
            "--kafka-property needs a key before '=', e.g. security.protocol=SSL");
      }
      settings.put(key, property.substring(equals + 1).trim());
    }
    return settings;
  }

  /**
   * A line for people: the settings' keys, with the values of the two that say how the client
   * connects ({@code security.protocol}, {@code sasl.mechanism}); every other value is left out.
   */
  static String describe(Map<String, String> settings) {
    if (settings.isEmpty()) {
      return "no client settings";
    }
    List<String> parts = new ArrayList<>();
    for (String key : new TreeMap<>(settings).keySet()) {
      String lower = key.toLowerCase(Locale.ROOT);
      boolean shown = lower.equals("security.protocol") || lower.equals("sasl.mechanism");
      parts.add(shown ? key + "=" + settings.get(key) : key);
    }
    return "client settings " + String.join(", ", parts);
  }

  private static Map<String, String> read(Path file) {
    Properties loaded = new Properties();
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      loaded.load(reader);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException(
          "--kafka-config " + file + ": no such file (give the path of a Java properties file)");
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "--kafka-config " + file + ": cannot be read (" + e.getClass().getSimpleName() + ")");
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "--kafka-config " + file + " is not a Java properties file (a malformed \\u escape)");
    }
    Map<String, String> settings = new TreeMap<>();
    for (String key : loaded.stringPropertyNames()) {
      settings.put(key.trim(), loaded.getProperty(key).trim());
    }
    return settings;
  }
}

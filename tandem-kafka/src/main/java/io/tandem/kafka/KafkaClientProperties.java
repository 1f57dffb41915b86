package io.tandem.kafka;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * Kafka client settings beside the bootstrap servers (TLS, SASL, tuning), as one map given to every
 * producer, consumer and admin client of a program: each client takes the settings it knows ({@link
 * #producer}, {@link #consumer}, {@link #admin}), so that a consumer is not handed a producer's
 * setting. A child process receives them through its environment ({@link #ENVIRONMENT_VARIABLE},
 * readable by its owner only, as a 0600 file is), never its command line, and reads them back with
 * {@link #inherited()}.
 *
 * <p>Values may be secrets (a JAAS line with a password, a key password): nothing here prints them.
 */
public final class KafkaClientProperties {

  /** The environment variable that carries the settings to a child process. */
  public static final String ENVIRONMENT_VARIABLE = "TANDEM_KAFKA_CLIENT_PROPERTIES";

  private KafkaClientProperties() {}

  /** The settings of {@code all} a producer knows. */
  public static Map<String, String> producer(Map<String, String> all) {
    return known(all, ProducerConfig.configNames());
  }

  /** The settings of {@code all} a consumer knows. */
  public static Map<String, String> consumer(Map<String, String> all) {
    return known(all, ConsumerConfig.configNames());
  }

  /** The settings of {@code all} an admin client knows. */
  public static Map<String, String> admin(Map<String, String> all) {
    return known(all, AdminClientConfig.configNames());
  }

  /**
   * A consumer's configuration: the settings of {@code client} a consumer knows, then {@code
   * config} (the program's own, which win).
   */
  public static Map<String, Object> consumer(
      Map<String, String> client, Map<String, Object> config) {
    return overlay(consumer(client), config);
  }

  /** A producer's configuration: {@code client}'s producer settings, then {@code config}. */
  public static Map<String, Object> producer(
      Map<String, String> client, Map<String, Object> config) {
    return overlay(producer(client), config);
  }

  /** An admin client's configuration: {@code client}'s admin settings, then {@code config}. */
  public static Map<String, Object> admin(Map<String, String> client, Map<String, Object> config) {
    return overlay(admin(client), config);
  }

  private static Map<String, Object> overlay(
      Map<String, String> settings, Map<String, Object> config) {
    Map<String, Object> all = new java.util.HashMap<>(settings);
    all.putAll(config);
    return all;
  }

  /** {@code all} as Java properties text, for {@link #ENVIRONMENT_VARIABLE}. */
  public static String encode(Map<String, String> all) {
    Properties properties = new Properties();
    properties.putAll(all);
    StringWriter text = new StringWriter();
    try {
      properties.store(text, null);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a StringWriter does not fail
    }
    return text.toString();
  }

  /** The settings of properties text written by {@link #encode}. */
  public static Map<String, String> decode(String text) {
    Properties properties = new Properties();
    try {
      properties.load(new StringReader(text));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          ENVIRONMENT_VARIABLE + " is not Java properties text (a malformed \\u escape)");
    }
    Map<String, String> settings = new TreeMap<>();
    properties.stringPropertyNames().forEach(k -> settings.put(k, properties.getProperty(k)));
    return Collections.unmodifiableMap(settings);
  }

  /**
   * In a child process: the settings its parent put in {@link #ENVIRONMENT_VARIABLE}, none when the
   * variable is not set.
   */
  public static Map<String, String> inherited() {
    String text = System.getenv(ENVIRONMENT_VARIABLE);
    return text == null ? Map.of() : decode(text);
  }

  private static Map<String, String> known(Map<String, String> all, Set<String> names) {
    Map<String, String> known = new TreeMap<>();
    all.forEach(
        (key, value) -> {
          if (names.contains(key)) {
            known.put(key, value);
          }
        });
    return Collections.unmodifiableMap(known);
  }
}

package io.tandem.testkit.internal;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one user of an embedded broker's SASL listener: known to PLAIN through the listener's JAAS
 * configuration, to SCRAM-SHA-256 and SCRAM-SHA-512 through credentials written into the cluster
 * metadata when the log directory is formatted (KRaft keeps SCRAM credentials there).
 *
 * @param name the user name
 * @param password a random password made by {@link #random}
 */
public record SaslUser(String name, String password) {

  /** The mechanisms the SASL listener enables. */
  public static final List<String> MECHANISMS = List.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512");

  /** A user {@code name} with a random password of 32 hex digits. */
  public static SaslUser random(String name) {
    byte[] bytes = new byte[16];
    new SecureRandom().nextBytes(bytes);
    return new SaslUser(name, HexFormat.of().formatHex(bytes));
  }

  /** The broker settings of listener {@code listener} (lower case) for the three mechanisms. */
  Map<String, String> listenerConfig(String listener) {
    Map<String, String> config = new LinkedHashMap<>();
    String prefix = "listener.name." + listener + ".";
    config.put("sasl.enabled.mechanisms", String.join(",", MECHANISMS));
    config.put(
        prefix + "plain.sasl.jaas.config",
        "org.apache.kafka.common.security.plain.PlainLoginModule required user_"
            + name
            + "=\""
            + password
            + "\";");
    for (String scram : List.of("scram-sha-256", "scram-sha-512")) {
      config.put(
          prefix + scram + ".sasl.jaas.config",
          "org.apache.kafka.common.security.scram.ScramLoginModule required;");
    }
    return config;
  }

  /** The {@code kafka-storage format} arguments that add this user's SCRAM credentials. */
  List<String> scramFormatArguments() {
    return List.of(
        "--add-scram",
        "SCRAM-SHA-256=[name=" + name + ",password=" + password + "]",
        "--add-scram",
        "SCRAM-SHA-512=[name=" + name + ",password=" + password + "]");
  }

  /**
   * The client settings that log in as this user with {@code mechanism} on a SASL_PLAINTEXT
   * listener, password {@code password} (this user's, or a wrong one for a test).
   */
  public static Map<String, String> clientProperties(
      String mechanism, String name, String password) {
    if (!MECHANISMS.contains(mechanism)) {
      throw new IllegalArgumentException(
          "SASL mechanism must be one of " + MECHANISMS + ", was " + mechanism);
    }
    String module =
        mechanism.equals("PLAIN")
            ? "org.apache.kafka.common.security.plain.PlainLoginModule"
            : "org.apache.kafka.common.security.scram.ScramLoginModule";
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("security.protocol", "SASL_PLAINTEXT");
    properties.put("sasl.mechanism", mechanism);
    properties.put(
        "sasl.jaas.config",
        module + " required username=\"" + name + "\" password=\"" + password + "\";");
    return properties;
  }

  @Override
  public String toString() {
    return "SaslUser[" + name + "]"; // never the password
  }
}

package io.tandem.spring.boot3;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The starter's tests run on the versions Spring Boot's dependency management gives a Boot user
 * (this module's parent is spring-boot-starter-parent), not on tandem-parent's: the other tests of
 * this module prove Tandem works on them. Only kafka-clients is overridden (kafka.version 4.3.1;
 * the boot-managed-kafka profile restores Boot's).
 */
class ManagedVersionsTest {
  @Test
  void theTestClasspathHasBootsManagedVersions() throws Exception {
    Map<String, String> jars = new TreeMap<>();
    jars.put("flyway-core", jar("org.flywaydb.core.Flyway"));
    jars.put("jackson-databind", jar("com.fasterxml.jackson.databind.ObjectMapper"));
    jars.put("micrometer-core", jar("io.micrometer.core.instrument.MeterRegistry"));
    jars.put("spring-core", jar("org.springframework.core.SpringVersion"));
    jars.put("kafka-clients", jar("org.apache.kafka.clients.producer.KafkaProducer"));
    System.out.println("resolved: " + jars);
    assertThat(jars).containsAllEntriesOf(EXPECTED);
    // 4.3.1 unless the boot-managed-kafka profile asks for Boot's own.
    assertThat(jars.get("kafka-clients"))
        .isEqualTo(System.getProperty("tandem.test.kafka.version", "4.3.1"));
  }

  private static String jar(String className) throws Exception {
    String path =
        Class.forName(className).getProtectionDomain().getCodeSource().getLocation().getPath();
    String file = path.substring(path.lastIndexOf('/') + 1);
    return file.replaceAll("^.*?-(\\d[^-]*(-[A-Za-z0-9.]+)?)\\.jar$", "$1");
  }

  // Boot's managed versions.
  private static final Map<String, String> EXPECTED =
      Map.of(
          "flyway-core",
          "11.7.2",
          "jackson-databind",
          "2.19.2",
          "micrometer-core",
          "1.15.5",
          "spring-core",
          "6.2.12");
}

package io.tandem.sample;

import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.KafkaBroker;
import io.tandem.testkit.PostgresServer;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The sample order service. With {@code spring.datasource.url} and {@code
 * tandem.kafka.bootstrap-servers} set it uses them; with nothing set it starts an embedded
 * PostgreSQL and Kafka (tandem-testkit) first, so one command runs it.
 */
@SpringBootApplication
public class OrderServiceApplication {
  public static void main(String[] args) {
    SpringApplication app = new SpringApplication(OrderServiceApplication.class);
    if (!configured("spring.datasource.url", "SPRING_DATASOURCE_URL", args)) {
      app.setDefaultProperties(embeddedInfrastructure());
    }
    app.run(args);
  }

  /**
   * A fresh database on an embedded PostgreSQL (or on TANDEM_JDBC_URL's server) and an embedded
   * Kafka broker, both stopped when the JVM exits.
   */
  public static Map<String, Object> embeddedInfrastructure() {
    String url = System.getenv("TANDEM_JDBC_URL");
    PostgresServer server =
        url == null || url.isBlank()
            ? PostgresServer.embedded().start()
            : PostgresServer.external(url.strip());
    IsolatedDatabase database = server.createDatabase("sample_orders");
    KafkaBroker kafka = KafkaBroker.embedded().start();
    return Map.of(
        "spring.datasource.url", database.jdbcUrl(),
        "tandem.kafka.bootstrap-servers", kafka.bootstrapServers());
  }

  private static boolean configured(String property, String variable, String[] args) {
    for (String a : args) {
      if (a.startsWith("--" + property + "=")) {
        return true;
      }
    }
    return System.getProperty(property) != null || System.getenv(variable) != null;
  }
}

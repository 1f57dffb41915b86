package io.tandem.sample;

import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.TestInfrastructure;
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

  /** A fresh database on the embedded (or TANDEM_JDBC_URL's) PostgreSQL and the embedded Kafka. */
  public static Map<String, Object> embeddedInfrastructure() {
    IsolatedDatabase database = TestInfrastructure.postgres().createDatabase("sample_orders");
    return Map.of(
        "spring.datasource.url", database.jdbcUrl(),
        "tandem.kafka.bootstrap-servers", TestInfrastructure.kafka().bootstrapServers());
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

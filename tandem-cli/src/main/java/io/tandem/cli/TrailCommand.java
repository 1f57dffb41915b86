package io.tandem.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.tandem.jdbc.JdbcException;
import io.tandem.saga.SagaTrail;
import io.tandem.saga.TrailEntry;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code tandem trail ID --service NAME=JDBC_URL ...}: every event of one business transaction
 * across services, in order ({@link SagaTrail}).
 */
@Command(
    name = "trail",
    mixinStandardHelpOptions = true,
    header = "Lists every event of one business transaction across services, in order.",
    description = {
      "Reads the outbox and inbox of each service given with --service: every event whose",
      "correlationid header is ID, when it occurred, whether it was published and which",
      "consumers recorded it. The user goes in each JDBC URL; the password comes from",
      "TANDEM_DB_PASSWORD for every URL that has none (never from the command line)."
    })
final class TrailCommand implements Callable<Integer> {
  private static final ObjectMapper JSON = new ObjectMapper();

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Parameters(paramLabel = "CORRELATION_ID", description = "The business transaction's id.")
  String correlationId;

  @Option(
      names = "--service",
      required = true,
      paramLabel = "NAME=JDBC_URL",
      description =
          "A service and its database (PostgreSQL or MariaDB), repeated for each service, e.g."
              + " --service order=jdbc:postgresql://db:5432/orders?user=app")
  LinkedHashMap<String, String> services;

  @Option(names = "--json", description = "One JSON object instead of the table.")
  boolean json;

  @Override
  public Integer call() throws JsonProcessingException {
    if (correlationId.isBlank()) {
      throw new IllegalArgumentException("CORRELATION_ID must not be blank");
    }
    List<HikariDataSource> pools = new ArrayList<>();
    try {
      SagaTrail.Builder trail = SagaTrail.builder();
      services.forEach(
          (name, url) -> {
            DatabaseOptions.requireSupportedUrl(url, "--service " + name + ":");
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(url);
            config.setPoolName("tandem-trail-" + name);
            String password = System.getenv("TANDEM_DB_PASSWORD");
            if (password != null && !io.tandem.core.Redaction.containsSecret(url)) {
              config.setPassword(password);
            }
            config.setMaximumPoolSize(1);
            config.setInitializationFailTimeout(5_000);
            HikariDataSource ds = DatabaseOptions.open(config, "service " + name + " at");
            pools.add(ds);
            trail.service(name, ds);
          });
      List<TrailEntry> entries;
      try {
        entries = trail.build().find(correlationId);
      } catch (JdbcException e) {
        java.util.regex.Matcher service =
            java.util.regex.Pattern.compile("from service (\\S+)'s database")
                .matcher(String.valueOf(e.getMessage()));
        throw DatabaseOptions.explainMissingSchema(
            e,
            "tandem_outbox",
            service.find() ? "--service " + service.group(1) : "a --service database");
      }
      PrintWriter out = spec.commandLine().getOut();
      out.print(json ? JSON.writeValueAsString(asJson(entries)) + "\n" : render(entries));
      out.flush();
      return 0;
    } finally {
      pools.forEach(HikariDataSource::close);
    }
  }

  private String render(List<TrailEntry> entries) {
    return SagaTrail.render(correlationId, entries);
  }

  private Map<String, Object> asJson(List<TrailEntry> entries) {
    List<Map<String, Object>> events = new ArrayList<>();
    for (TrailEntry e : entries) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("event_id", e.eventId().toString());
      m.put("service", e.service());
      m.put("event_type", e.eventType());
      m.put("aggregate_type", e.aggregateType());
      m.put("aggregate_id", e.aggregateId());
      m.put("aggregate_version", e.aggregateVersion());
      m.put("occurred_at", e.occurredAt().toString());
      m.put("published_at", e.publishedAt() == null ? null : e.publishedAt().toString());
      List<Map<String, Object>> consumers = new ArrayList<>();
      for (TrailEntry.Consumption c : e.consumedBy()) {
        Map<String, Object> cm = new LinkedHashMap<>();
        cm.put("service", c.service());
        cm.put("consumer", c.consumer());
        cm.put("processed_at", c.processedAt().toString());
        consumers.add(cm);
      }
      m.put("consumed_by", consumers);
      events.add(m);
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("correlation_id", correlationId);
    out.put("events", events);
    return out;
  }
}

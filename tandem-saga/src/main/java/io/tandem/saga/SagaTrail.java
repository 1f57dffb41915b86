package io.tandem.saga;

import io.tandem.core.EventHeaders;
import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.JdbcException;
import io.tandem.saga.TrailEntry.Consumption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * Follows one business transaction across services: every event whose {@code correlationid} header
 * ({@link EventHeaders#CORRELATION_ID}) carries a given value, from the outbox of each service,
 * with its publication time and the consumers that recorded it in their inbox. It is how a
 * choreography — services reacting to each other's events, with no coordinator that keeps a step
 * log — is traced end to end, provided every service copies the correlation id of the event it
 * reacts to onto the events it writes.
 *
 * <pre>{@code
 * SagaTrail trail = SagaTrail.builder()
 *     .service("order", orderDataSource)
 *     .service("payment", paymentDataSource)   // PostgreSQL and MariaDB may be mixed
 *     .service("inventory", inventoryDataSource)
 *     .build();
 * List<TrailEntry> events = trail.find("checkout-42");
 * System.out.println(SagaTrail.render("checkout-42", events));
 * }</pre>
 *
 * <p>The entries come in {@code occurred_at} order, then outbox row id, then service name. The
 * services' clocks order events of different services: on one host, or with synchronised clocks, a
 * reaction occurs after the event it reacts to, since it is written after that event was consumed.
 * {@link TrailEntry#consumedBy()} lists each inbox record of the event found in any of the
 * services' databases ({@code tandem_inbox.processed_at}); an event a consumer skipped (it has no
 * handler for the type) is recorded there too. Events and inbox records deleted by retention are no
 * longer found.
 *
 * <p>Cost: one query per service for the events, then one query per service and event for the inbox
 * records. Neither column is indexed by Tandem's schema, since the index would cost every write of
 * the hot path for an occasional diagnostic read; with large outbox or inbox tables add the indexes
 * given in the documentation (an expression index on the header, an index on {@code
 * tandem_inbox(event_id)}).
 *
 * <p>Reads only, each service in its own short read; a trail taken while the transaction is still
 * moving is a consistent view of each database, not of all of them at one instant. Immutable and
 * thread-safe.
 */
public final class SagaTrail {
  private static final String TRAIL_CONSUMERS =
      """
      SELECT consumer, processed_at FROM tandem_inbox
       WHERE event_id = ?
       ORDER BY processed_at, consumer
      """;

  private static final Pattern SERVICE_NAME = Pattern.compile("[A-Za-z0-9._:-]{1,100}");

  private record Service(String name, DataSource dataSource) {}

  private final List<Service> services;

  private SagaTrail(List<Service> services) {
    this.services = List.copyOf(services);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The service names, in the order they were added. */
  public List<String> services() {
    return services.stream().map(Service::name).toList();
  }

  /**
   * Every event of the business transaction {@code correlationId}, across the services, in order;
   * empty when no outbox holds one.
   *
   * @throws IllegalArgumentException when {@code correlationId} is null or blank
   * @throws JdbcException naming the service whose database could not be read
   */
  public List<TrailEntry> find(String correlationId) {
    if (correlationId == null || correlationId.isBlank()) {
      throw new IllegalArgumentException(
          "correlationId must not be blank, was '" + correlationId + "'");
    }
    List<TrailEntry> events = new ArrayList<>();
    for (Service s : services) {
      events.addAll(read(s, correlationId, (conn, d) -> events(s, conn, d, correlationId)));
    }
    if (events.isEmpty()) {
      return List.of();
    }
    Map<UUID, List<Consumption>> consumed = new HashMap<>();
    for (Service s : services) {
      read(s, correlationId, (conn, d) -> consumers(s, conn, d, events, consumed));
    }
    Comparator<Consumption> byTime =
        Comparator.comparing(Consumption::processedAt).thenComparing(Consumption::service);
    return events.stream()
        .map(
            e -> {
              List<Consumption> c = new ArrayList<>(consumed.getOrDefault(e.eventId(), List.of()));
              c.sort(byTime);
              return new TrailEntry(
                  e.eventId(),
                  e.service(),
                  e.outboxId(),
                  e.aggregateType(),
                  e.aggregateId(),
                  e.aggregateVersion(),
                  e.eventType(),
                  e.occurredAt(),
                  e.publishedAt(),
                  c);
            })
        .sorted(
            Comparator.comparing(TrailEntry::occurredAt)
                .thenComparingLong(TrailEntry::outboxId)
                .thenComparing(TrailEntry::service))
        .toList();
  }

  /**
   * A table of a trail for people: one line per event with its time relative to the first event,
   * service, type, aggregate, publication and consumers.
   *
   * <pre>
   * trail checkout-order-000003: 5 events
   *       +0 ms  order      OrderCreated       Order/order-000003 v1          published +887 ms    payment +947 ms
   *    +1095 ms  payment    PaymentAuthorized  Payment/order-000003 v1        published +1330 ms   order +1437 ms, inventory +1562 ms
   * ...
   * </pre>
   */
  public static String render(String correlationId, List<TrailEntry> entries) {
    StringBuilder out = new StringBuilder();
    out.append("trail ").append(correlationId).append(": ");
    if (entries.isEmpty()) {
      return out.append("no events (no outbox of the trail's services holds this correlation id)\n")
          .toString();
    }
    out.append(entries.size()).append(entries.size() == 1 ? " event\n" : " events\n");
    Instant start = entries.get(0).occurredAt();
    for (TrailEntry e : entries) {
      List<String> consumers = new ArrayList<>();
      for (Consumption c : e.consumedBy()) {
        consumers.add(c.consumer() + " " + offset(start, c.processedAt()));
      }
      out.append(
          String.format(
              Locale.ROOT,
              "  %9s  %-10s %-18s %-30s %-20s %s%n",
              offset(start, e.occurredAt()),
              e.service(),
              e.eventType(),
              e.aggregateType() + "/" + e.aggregateId() + " v" + e.aggregateVersion(),
              e.published() ? "published " + offset(start, e.publishedAt()) : "NOT PUBLISHED",
              consumers.isEmpty() ? "not consumed" : String.join(", ", consumers)));
    }
    return out.toString();
  }

  private static String offset(Instant start, Instant at) {
    return "+" + Duration.between(start, at).toMillis() + " ms";
  }

  private static List<TrailEntry> events(
      Service s, Connection conn, Dialect d, String correlationId) throws SQLException {
    return d.operations()
        .eventsByCorrelationId(
            conn,
            correlationId,
            rs -> {
              List<TrailEntry> events = new ArrayList<>();
              while (rs.next()) {
                events.add(
                    new TrailEntry(
                        rs.getObject("event_id", UUID.class),
                        s.name(),
                        rs.getLong("id"),
                        rs.getString("aggregate_type"),
                        rs.getString("aggregate_id"),
                        rs.getLong("aggregate_version"),
                        rs.getString("event_type"),
                        d.readInstant(rs, "occurred_at"),
                        d.readInstant(rs, "published_at"),
                        List.of()));
              }
              return events;
            });
  }

  private static Void consumers(
      Service s,
      Connection conn,
      Dialect d,
      List<TrailEntry> events,
      Map<UUID, List<Consumption>> consumed)
      throws SQLException {
    try (PreparedStatement ps = conn.prepareStatement(TRAIL_CONSUMERS)) {
      for (TrailEntry e : events) {
        ps.setObject(1, e.eventId());
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            consumed
                .computeIfAbsent(e.eventId(), id -> new ArrayList<>())
                .add(
                    new Consumption(
                        s.name(), rs.getString("consumer"), d.readInstant(rs, "processed_at")));
          }
        }
      }
    }
    return null;
  }

  @FunctionalInterface
  private interface Read<T> {
    T apply(Connection connection, Dialect dialect) throws SQLException;
  }

  private static <T> T read(Service s, String correlationId, Read<T> read) {
    try (Connection conn = s.dataSource().getConnection()) {
      return read.apply(conn, Dialect.of(conn));
    } catch (SQLException e) {
      throw new JdbcException(
          "reading the trail of '"
              + correlationId
              + "' from service "
              + s.name()
              + "'s database failed: "
              + e.getMessage(),
          e);
    }
  }

  /** Builds a {@link SagaTrail}. Not thread-safe. */
  public static final class Builder {
    private final Map<String, Service> services = new LinkedHashMap<>();

    private Builder() {}

    /**
     * Adds a service whose outbox (and inbox) the trail reads.
     *
     * @param name a name for the trail's output: 1 to 100 letters, digits or {@code . _ : -},
     *     unique within the trail
     * @param dataSource the service's database, with Tandem's schema (PostgreSQL or MariaDB)
     */
    public Builder service(String name, DataSource dataSource) {
      if (name == null || !SERVICE_NAME.matcher(name).matches()) {
        throw new IllegalArgumentException(
            "service name must be 1 to 100 letters, digits or . _ : -, was '" + name + "'");
      }
      if (dataSource == null) {
        throw new IllegalArgumentException("dataSource of service " + name + " must not be null");
      }
      if (services.containsKey(name)) {
        throw new IllegalArgumentException("service " + name + " was added twice");
      }
      services.put(name, new Service(name, dataSource));
      return this;
    }

    /**
     * @throws IllegalStateException when no service was added
     */
    public SagaTrail build() {
      if (services.isEmpty()) {
        throw new IllegalStateException(
            "a saga trail needs at least one service: call service(name, dataSource)");
      }
      return new SagaTrail(new ArrayList<>(services.values()));
    }
  }
}

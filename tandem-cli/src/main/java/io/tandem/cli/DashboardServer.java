package io.tandem.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tandem.core.ErrorSummary;
import io.tandem.inbox.DeadLetterStatus;
import io.tandem.inbox.InboxOperations;
import io.tandem.jdbc.Dialect;
import io.tandem.outbox.OutboxMetrics;
import io.tandem.outbox.OutboxOperations;
import io.tandem.outbox.OutboxStatus;
import io.tandem.saga.SagaMetrics;
import io.tandem.saga.SagaQueries;
import io.tandem.saga.SagaStatus;
import io.tandem.saga.SagaTrail;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The web console of {@code tandem dashboard}: static pages from the jar ({@code
 * io/tandem/cli/dashboard/}), a JSON API over one Tandem database (outbox, consumers, sagas), and
 * {@code /metrics} with the gauges read from it ({@link OutboxMetrics}, {@link SagaMetrics}).
 *
 * <p>On loopback (the default) reads need no token; bound elsewhere ({@code --http-allow-remote})
 * the API and {@code /metrics} need it too (the pages themselves hold no data). Every action
 * ({@code POST /api/...}) needs {@code Authorization: Bearer <token>} — refused with 401 otherwise
 * and never recorded — and is recorded in {@code tandem_dashboard_action} with the operator name
 * the page sends, the remote address, the target and the outcome. A sampler reads the outbox every
 * {@code sampleEvery} into a bounded history for the charts.
 */
final class DashboardServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DashboardServer.class);

  private final DataSource dataSource;
  private final Dialect dialect;
  private final List<String> consumers;
  private final List<DashboardPanel> panels;
  private final byte[] actionToken;
  private final boolean readsNeedToken;
  private final OutboxOperations outbox;
  private final InboxOperations inbox;
  private final SagaQueries sagas;
  private final SagaTrail trail;
  private final PrometheusMeterRegistry registry;
  private final OutboxMetrics outboxMetrics;
  private final SagaMetrics sagaMetrics;
  private final DashboardHistory history;
  private final DashboardActionLog actionLog;
  private final ScheduledExecutorService sampler;
  private final ExecutorService executor;
  private final HttpServer server;

  /**
   * @param endpoint where to listen; outside loopback the token guards reads too
   * @param actionToken the token actions need (the configured one, or one generated at start)
   * @param consumers the inbox consumers whose dead letters and gaps the console shows
   */
  DashboardServer(
      HttpEndpoint endpoint,
      String actionToken,
      DataSource dataSource,
      List<String> consumers,
      Duration sampleEvery)
      throws IOException {
    this(endpoint, actionToken, dataSource, consumers, sampleEvery, List.of());
  }

  /**
   * @param panels what else the overview shows (a CDC slot, in-doubt branches), each under its name
   */
  DashboardServer(
      HttpEndpoint endpoint,
      String actionToken,
      DataSource dataSource,
      List<String> consumers,
      Duration sampleEvery,
      List<DashboardPanel> panels)
      throws IOException {
    this.dataSource = dataSource;
    this.dialect = Dialect.of(dataSource);
    this.consumers = List.copyOf(consumers);
    this.panels = List.copyOf(panels);
    this.actionToken = ("Bearer " + actionToken).getBytes(StandardCharsets.UTF_8);
    this.readsNeedToken = endpoint.remote();
    this.outbox = OutboxOperations.create(dataSource, dialect);
    this.inbox = InboxOperations.create(dataSource, dialect);
    this.sagas = SagaQueries.of(dataSource);
    this.trail = SagaTrail.builder().service("db", dataSource).build();
    this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    this.outboxMetrics = OutboxMetrics.register(registry, outbox, sampleEvery);
    this.sagaMetrics = SagaMetrics.register(registry, dataSource, sampleEvery);
    this.sampler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "tandem-dashboard-sampler");
              t.setDaemon(true);
              return t;
            });
    AtomicInteger threads = new AtomicInteger();
    this.executor =
        Executors.newFixedThreadPool(
            HealthServer.THREADS,
            r -> {
              Thread t = new Thread(r, "tandem-dashboard-http-" + threads.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    this.history = new DashboardHistory(outbox);
    this.actionLog = new DashboardActionLog(dataSource, dialect);
    history.sample();
    sampler.scheduleWithFixedDelay(
        history::sample, sampleEvery.toMillis(), sampleEvery.toMillis(), TimeUnit.MILLISECONDS);
    server = HttpServer.create(new InetSocketAddress(endpoint.host(), endpoint.port()), 64);
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  int port() {
    return server.getAddress().getPort();
  }

  private void handle(HttpExchange ex) throws IOException {
    try {
      String path = ex.getRequestURI().getPath();
      String method = ex.getRequestMethod();
      boolean data = path.startsWith("/api/") || path.equals("/metrics");
      if (readsNeedToken && data && !authorized(ex)) {
        DashboardHttp.json(
            ex, 401, Map.of("error", "a bearer token is required (Authorization: Bearer ...)"));
        return;
      }
      if (method.equals("POST")) {
        action(ex, path);
      } else if (!method.equals("GET")) {
        ex.getResponseHeaders().set("Allow", "GET, POST");
        DashboardHttp.json(ex, 405, Map.of("error", method + " is not allowed"));
      } else if (path.equals("/metrics")) {
        DashboardHttp.respond(
            ex,
            200,
            "text/plain; version=0.0.4; charset=utf-8",
            DashboardHttp.bytes(registry.scrape()));
      } else if (path.startsWith("/api/")) {
        read(ex, path.substring("/api/".length()));
      } else {
        DashboardHttp.asset(ex, path.equals("/") ? "index.html" : path.substring(1));
      }
    } catch (IllegalArgumentException | IllegalStateException e) {
      DashboardHttp.json(ex, 400, Map.of("error", String.valueOf(e.getMessage())));
    } catch (RuntimeException e) {
      log.warn("dashboard: {} {} failed", ex.getRequestMethod(), ex.getRequestURI(), e);
      DashboardHttp.json(ex, 500, Map.of("error", ErrorSummary.of(e)));
    } finally {
      ex.close();
    }
  }

  private void read(HttpExchange ex, String what) throws IOException {
    Map<String, String> q = DashboardHttp.query(ex);
    Object body =
        switch (what) {
          case "overview" -> overview();
          case "history" -> history.points();
          case "quarantined" -> JsonView.view(outbox.listQuarantined(100));
          case "dead-letters" ->
              JsonView.view(inbox.deadLetters(consumer(q), DeadLetterStatus.DEAD, 0, 100));
          case "gaps" -> JsonView.view(inbox.gaps(consumer(q), Duration.ZERO, 100));
          case "sagas" ->
              JsonView.view(
                  sagas.list(
                      null,
                      q.containsKey("status") ? SagaStatus.valueOf(q.get("status")) : null,
                      Instant.now().plusSeconds(1),
                      100));
          case "saga" ->
              JsonView.view(
                  sagas
                      .find(UUID.fromString(required(q, "id")))
                      .orElseThrow(() -> new IllegalArgumentException("no saga " + q.get("id"))));
          case "trail" -> JsonView.view(trail.find(required(q, "correlationId")));
          case "actions" -> actionLog.actions();
          default -> null;
        };
    if (body == null) {
      DashboardHttp.json(ex, 404, Map.of("error", "no such API: /api/" + what));
    } else {
      DashboardHttp.json(ex, 200, body);
    }
  }

  private Map<String, Object> overview() {
    OutboxStatus s = outbox.status();
    Map<String, Object> o = new LinkedHashMap<>();
    o.put("pending", s.pending());
    o.put("oldestPendingSeconds", s.oldestPendingAge().toMillis() / 1000.0);
    o.put("quarantined", s.quarantined());
    o.put("skipped", s.skipped());
    o.put("published", s.published());
    o.put("unownedPartitions", s.unowned().size());
    o.put("strandedPartitions", s.stranded().size());
    o.put("relays", JsonView.view(s.instances()));
    Map<String, Long> byStatus = new LinkedHashMap<>();
    for (SagaStatus status : SagaStatus.values()) {
      byStatus.put(status.name(), 0L);
    }
    for (var saga : sagas.list(null, null, Instant.now().plusSeconds(1), 10_000)) {
      byStatus.merge(saga.status().name(), 1L, Long::sum);
    }
    o.put("sagas", byStatus);
    Map<String, Object> perConsumer = new LinkedHashMap<>();
    for (String c : consumers) {
      perConsumer.put(
          c,
          Map.of(
              "deadLetters", inbox.openDeadLetters(c),
              "gaps", inbox.gaps(c, Duration.ZERO, 10_000).size()));
    }
    o.put("consumers", perConsumer);
    for (DashboardPanel panel : panels) {
      o.put(panel.name(), panel.read());
    }
    return o;
  }

  private void action(HttpExchange ex, String path) throws IOException {
    if (!authorized(ex)) {
      log.warn(
          "dashboard: refused {} from {} without the dashboard token", path, ex.getRemoteAddress());
      ex.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"tandem-dashboard\"");
      DashboardHttp.json(
          ex,
          401,
          Map.of("error", "this action needs the dashboard token (Authorization: Bearer ...)"));
      return;
    }
    JsonNode body;
    try (InputStream in = ex.getRequestBody()) {
      byte[] raw = in.readNBytes(64 * 1024);
      body =
          raw.length == 0
              ? DashboardHttp.JSON.createObjectNode()
              : DashboardHttp.JSON.readTree(raw);
    }
    String operator = text(body, "operator").orElse("anonymous");
    String remote = String.valueOf(ex.getRemoteAddress());
    switch (path) {
      case "/api/outbox/replay" -> {
        UUID id = UUID.fromString(text(body, "eventId").orElseThrow(() -> missing("eventId")));
        perform(
            ex, operator, remote, "outbox.replay", id.toString(), null, () -> outbox.replay(id));
      }
      case "/api/outbox/skip" -> {
        UUID id = UUID.fromString(text(body, "eventId").orElseThrow(() -> missing("eventId")));
        String reason = text(body, "reason").orElseThrow(() -> missing("reason"));
        perform(
            ex,
            operator,
            remote,
            "outbox.skip",
            id.toString(),
            reason,
            () -> outbox.skip(id, reason));
      }
      case "/api/saga/retry-stuck" -> {
        UUID id = UUID.fromString(text(body, "sagaId").orElseThrow(() -> missing("sagaId")));
        perform(
            ex,
            operator,
            remote,
            "saga.retry-stuck",
            id.toString(),
            null,
            () -> sagas.retryStuck(id));
      }
      default -> DashboardHttp.json(ex, 404, Map.of("error", "no such action: " + path));
    }
  }

  private void perform(
      HttpExchange ex,
      String operator,
      String remote,
      String action,
      String target,
      String detail,
      Runnable work)
      throws IOException {
    try {
      work.run();
    } catch (RuntimeException e) {
      String error = ErrorSummary.of(e).toString();
      actionLog.record(
          operator,
          remote,
          action,
          target,
          "FAILED",
          detail == null ? error : detail + "; " + error);
      DashboardHttp.json(ex, 409, Map.of("error", String.valueOf(e.getMessage())));
      return;
    }
    actionLog.record(operator, remote, action, target, "DONE", detail);
    log.info("dashboard: {} {} by {} from {}", action, target, operator, remote);
    DashboardHttp.json(ex, 200, Map.of("done", action, "target", target));
  }

  private boolean authorized(HttpExchange ex) {
    String given = ex.getRequestHeaders().getFirst("Authorization");
    return given != null
        && MessageDigest.isEqual(actionToken, given.strip().getBytes(StandardCharsets.UTF_8));
  }

  private String consumer(Map<String, String> q) {
    String c = required(q, "consumer");
    if (!consumers.contains(c)) {
      throw new IllegalArgumentException(
          "consumer " + c + " is not watched: start the dashboard with --consumer " + c);
    }
    return c;
  }

  private static String required(Map<String, String> q, String name) {
    String v = q.get(name);
    if (v == null || v.isBlank()) {
      throw missing(name);
    }
    return v;
  }

  private static IllegalArgumentException missing(String name) {
    return new IllegalArgumentException("the request needs " + name);
  }

  private static Optional<String> text(JsonNode body, String field) {
    JsonNode v = body.get(field);
    return v == null || !v.isTextual() || v.asText().isBlank()
        ? Optional.empty()
        : Optional.of(v.asText().strip());
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
    sampler.shutdownNow();
    outboxMetrics.close();
    sagaMetrics.close();
  }
}

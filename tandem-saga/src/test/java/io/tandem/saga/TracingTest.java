package io.tandem.saga;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.tandem.core.Event;
import io.tandem.core.EventHeaders;
import io.tandem.inbox.InboxProcessor;
import io.tandem.jdbc.Migrations;
import io.tandem.jdbc.Transactions;
import io.tandem.outbox.Outbox;
import io.tandem.outbox.OutboxRelay;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.TestInfrastructure;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Trace context end to end on a real database: stored at append, sent by the relay, continued by
 * the inbox, the participants and the orchestrator (a broker in memory between them).
 */
class TracingTest {
  /** The saga data. */
  public record Purchase(String orderId) {}

  static final InMemorySpanExporter SPANS = InMemorySpanExporter.create();
  static final AttributeKey<String> GROUP = AttributeKey.stringKey("messaging.consumer.group.name");
  static Tracer tracer;

  private IsolatedDatabase db;
  private LoopbackBus bus;
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @BeforeAll
  static void sdk() {
    GlobalOpenTelemetry.resetForTest();
    OpenTelemetrySdk.builder()
        .setTracerProvider(
            SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(SPANS)).build())
        .buildAndRegisterGlobal();
    tracer = GlobalOpenTelemetry.getTracer("test");
  }

  @AfterAll
  static void reset() {
    GlobalOpenTelemetry.resetForTest();
  }

  @BeforeEach
  void world() {
    SPANS.reset();
    db = TestInfrastructure.postgres().createDatabase("tracing");
    Migrations.migrate(db.dataSource());
    bus = new LoopbackBus();
  }

  @AfterEach
  void close() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    bus.close();
    db.close();
  }

  @Test
  void anEventAppendedInASpanCarriesItsContextAndItsConsumerContinuesTheTrace() throws Exception {
    DataSource ds = db.dataSource();
    Outbox outbox = Outbox.create();
    bus.route(
        "Order",
        InboxProcessor.builder()
            .dataSource(ds)
            .consumer("billing")
            .on("OrderPlaced", (conn, e) -> outbox.append(conn, event("Invoice", e.aggregateId())))
            .build());
    bus.route(
        "Invoice",
        InboxProcessor.builder()
            .dataSource(ds)
            .consumer("archive")
            .onAnyEventType(1, (c, e) -> {})
            .build());
    String own = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    Event order = event("Order", "o-1");
    Event foreign =
        event("Order", "o-2").toBuilder()
            .headers(EventHeaders.builder().traceparent(own).build())
            .build();
    Span producer = tracer.spanBuilder("place order").startSpan();
    try (Scope s = producer.makeCurrent()) {
      Transactions.inTransaction(
          ds,
          conn -> {
            outbox.append(conn, order);
            outbox.append(conn, foreign);
            return null;
          });
    } finally {
      producer.end();
    }
    String traceId = producer.getSpanContext().getTraceId();
    assertThat(storedHeaders(order.eventId()))
        .as("the row holds the span current at append")
        .containsEntry(
            EventHeaders.TRACEPARENT,
            "00-"
                + traceId
                + "-"
                + producer.getSpanContext().getSpanId()
                + "-"
                + producer.getSpanContext().getTraceFlags().asHex());
    assertThat(storedHeaders(foreign.eventId()))
        .as("an event with its own traceparent keeps it")
        .containsEntry(EventHeaders.TRACEPARENT, own);

    relay(ds);
    SpanData billing = await(traceId, "billing");
    assertThat(billing.getKind()).isEqualTo(SpanKind.CONSUMER);
    assertThat(billing.getParentSpanId()).isEqualTo(producer.getSpanContext().getSpanId());
    assertThat(billing.getAttributes().get(AttributeKey.stringKey("messaging.message.id")))
        .isEqualTo(order.eventId().toString());
    SpanData archive = await(traceId, "archive");
    assertThat(archive.getParentSpanId())
        .as("the event the handler appended is a child of the handler's span")
        .isEqualTo(billing.getSpanId());
    assertThat(await("0af7651916cd43dd8448eb211c80319c", "billing").getParentSpanId())
        .as("the event's own trace continues in its consumer")
        .isEqualTo("b7ad6b7169203331");
  }

  @Test
  void oneSagasSpansFormOneTraceThroughTheOrchestratorAndEveryParticipant() throws Exception {
    DataSource ds = db.dataSource();
    SagaOrchestrator orchestrator =
        SagaOrchestrator.builder()
            .dataSource(ds)
            .name("checkout-orchestrator")
            .replyTo("checkout-replies")
            .definition(
                SagaDefinition.builder("checkout", Purchase.class)
                    .compensatable("create-order", "order", "CreateOrder", "CancelOrder")
                    .pivot("charge", "payment", "Charge")
                    .retriable("ship", "shipping", "Ship")
                    .build())
            .build();
    closeables.add(orchestrator);
    bus.route("checkout-replies", orchestrator.replyProcessor());
    for (String[] p :
        List.of(
            new String[] {"order", "CreateOrder"},
            new String[] {"payment", "Charge"},
            new String[] {"shipping", "Ship"})) {
      bus.route(
          p[0],
          SagaParticipant.builder()
              .dataSource(ds)
              .name(p[0])
              .command(p[1], (conn, cmd) -> StepResult.success())
              .build()
              .processor());
    }
    relay(ds);

    Span root = tracer.spanBuilder("checkout").startSpan();
    UUID saga;
    try (Scope s = root.makeCurrent()) {
      saga = orchestrator.start("checkout", new Purchase("o-1"));
    } finally {
      root.end();
    }
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> orchestrator.find(saga).orElseThrow().status() == SagaStatus.COMPLETED);
    String traceId = root.getSpanContext().getTraceId();
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> consumerSpans(traceId).size() == 6); // 3 commands, 3 replies
    List<SpanData> spans = consumerSpans(traceId);
    assertThat(spans.stream().map(s -> s.getAttributes().get(GROUP)).collect(Collectors.toSet()))
        .containsExactlyInAnyOrder("checkout-orchestrator", "order", "payment", "shipping");
    Set<String> known =
        spans.stream()
            .map(SpanData::getSpanId)
            .collect(Collectors.toCollection(java.util.HashSet::new));
    known.add(root.getSpanContext().getSpanId());
    assertThat(spans)
        .as("each step's span is a child of the span that sent its message: one chain")
        .allSatisfy(s -> assertThat(known).contains(s.getParentSpanId()));
    assertThat(
            spans.stream()
                .filter(s -> s.getParentSpanId().equals(root.getSpanContext().getSpanId())))
        .as("only the first command hangs from the root")
        .hasSize(1);
  }

  /**
   * A command lost on the way and sent again by the timer (no span is current on its thread)
   * continues the saga's trace: its consumer span is in the root's trace, a child of the first
   * command's sender, not the root of a new trace.
   */
  @Test
  void aCommandTheTimerSendsAgainContinuesTheSagasTrace() throws Exception {
    DataSource ds = db.dataSource();
    SagaOrchestrator orchestrator =
        SagaOrchestrator.builder()
            .dataSource(ds)
            .name("timer-orchestrator")
            .replyTo("timer-replies")
            .timerInterval(Duration.ofMillis(100))
            .definition(
                SagaDefinition.builder("lost", Purchase.class)
                    .retriable("ship", "shipping", "Ship")
                    .stepTimeout(Duration.ofMillis(500))
                    .build())
            .build();
    closeables.add(orchestrator);
    bus.route("timer-replies", orchestrator.replyProcessor());
    bus.route(
        "shipping",
        SagaParticipant.builder()
            .dataSource(ds)
            .name("shipping")
            .command("Ship", (conn, cmd) -> StepResult.success())
            .build()
            .processor());
    java.util.concurrent.atomic.AtomicBoolean lostOne =
        new java.util.concurrent.atomic.AtomicBoolean();
    bus.hold = e -> e.aggregateType().equals("shipping") && lostOne.compareAndSet(false, true);
    relay(ds);

    Span root = tracer.spanBuilder("lost checkout").startSpan();
    UUID saga;
    try (Scope s = root.makeCurrent()) {
      saga = orchestrator.start("lost", new Purchase("o-9"));
    } finally {
      root.end();
    }
    orchestrator.startTimer();
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> orchestrator.find(saga).orElseThrow().status() == SagaStatus.COMPLETED);
    assertThat(lostOne.get()).as("the first command was lost").isTrue();

    SpanData shipping = await(root.getSpanContext().getTraceId(), "shipping");
    assertThat(shipping.getParentSpanId())
        .as("the resent command carries the first command's context: the root's span")
        .isEqualTo(root.getSpanContext().getSpanId());
  }

  private void relay(DataSource ds) {
    OutboxRelay relay =
        OutboxRelay.builder()
            .dataSource(ds)
            .transport(bus)
            .relayId("tracing-relay")
            .pollInterval(Duration.ofMillis(50))
            .build();
    relay.start();
    closeables.add(relay);
  }

  private static SpanData await(String traceId, String consumer) {
    return Awaitility.await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                consumerSpans(traceId).stream()
                    .filter(s -> consumer.equals(s.getAttributes().get(GROUP)))
                    .findFirst(),
            java.util.Optional::isPresent)
        .orElseThrow();
  }

  private static List<SpanData> consumerSpans(String traceId) {
    return SPANS.getFinishedSpanItems().stream()
        .filter(s -> s.getKind() == SpanKind.CONSUMER && s.getTraceId().equals(traceId))
        .toList();
  }

  private Map<String, String> storedHeaders(UUID eventId) throws Exception {
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT headers::text FROM tandem_outbox WHERE event_id = ?")) {
      ps.setObject(1, eventId);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).isTrue();
        return EventHeaders.fromJson(rs.getString(1)).asMap();
      }
    }
  }

  private static Event event(String type, String id) {
    return Event.builder()
        .aggregate(type, id, 1)
        .eventType(type.equals("Order") ? "OrderPlaced" : "InvoiceIssued")
        .payload("{\"id\":\"" + id + "\"}")
        .build();
  }
}

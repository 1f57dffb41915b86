package io.tandem.nats;

import io.nats.client.Options;
import io.tandem.core.Event;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.core.spi.Transport;
import io.tandem.nats.internal.BatchPublisher;
import io.tandem.nats.internal.NatsConnector;
import io.tandem.nats.internal.StreamSetup;
import io.tandem.nats.internal.Subjects;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * Publishes events to NATS JetStream as CloudEvents 1.0 in binary content mode (see {@link
 * NatsCloudEventsCodec}), one subject per aggregate by default ({@link
 * SubjectRouter#byAggregate()}: {@code tandem.order.order-42}).
 *
 * <pre>{@code
 * try (JetStreamTransport nats = JetStreamTransport.builder()
 *     .url("nats://127.0.0.1:4222")
 *     .source("/tandem/orders-service")
 *     .ensureStream("ORDERS", "tandem.order.>")
 *     .build()) {
 *   List<PublishOutcome> outcomes = nats.publish(events, Duration.ofSeconds(10));
 * }
 * }</pre>
 *
 * <p><b>What counts as acknowledged.</b> {@link #publish} hands the whole batch to {@code
 * JetStream.publishAsync}, then waits once for every {@code PublishAck}. An event is acknowledged
 * only when its ack came back without error, that is when a stream stored the message (with the
 * stream's replication and storage: use file storage and 3 replicas in production). An ack marked
 * duplicate also counts: the stream already stores that event. Every message carries {@code
 * Nats-Msg-Id} = event id, so the server drops a re-published event inside the stream's duplicate
 * window. An event without an ack by the deadline is a {@link io.tandem.core.ErrorClass#TIMEOUT}
 * failure ({@code CONNECTION_LOST} if the connection dropped meanwhile).
 *
 * <p><b>Failures</b> are classified: no stream bound to the subject ("no responders"), stream not
 * found, sealed stream or an illegal subject are {@code UNROUTABLE} (permanent); a message over the
 * server's {@code max_payload} or the stream's maximum message size is {@code RECORD_TOO_LARGE}
 * (checked before sending, because the server would close the connection); refused credentials or a
 * publish permission violation are {@code AUTHORIZATION}; a lost or reconnecting connection is
 * {@code CONNECTION_LOST}, an unreachable server {@code BROKER_UNAVAILABLE}; JetStream errors that
 * pass (cluster unavailable, no leader, insufficient resources, store failed, stream limits) are
 * {@code TRANSIENT}; other JetStream errors are {@code UNKNOWN} (permanent).
 *
 * <p><b>Connecting.</b> {@link Builder#build()} checks the settings but does not connect: the first
 * publish connects (and creates the {@linkplain Builder#ensureStream stream} if configured and
 * missing), never waiting past its own timeout, so a relay can start while NATS is down; its events
 * then fail as {@code BROKER_UNAVAILABLE} and are retried. Once connected, the client reconnects by
 * itself; while it is reconnecting, publishes fail at once as {@code CONNECTION_LOST} instead of
 * being buffered.
 *
 * <p>Defaults: subject router {@link SubjectRouter#byAggregate()}, connect timeout {@value
 * #DEFAULT_CONNECT_TIMEOUT_SECONDS} s, no stream set-up; with {@link Builder#ensureStream}:
 * duplicate window {@value #DEFAULT_DUPLICATE_WINDOW_SECONDS} s, {@value #DEFAULT_STREAM_REPLICAS}
 * replica, file storage.
 *
 * <p>Thread-safe: several threads may publish at once through the one connection. {@link #close()}
 * returns promptly.
 */
public final class JetStreamTransport implements Transport {
  /** How long opening a connection may take at most (less when the publish has less time left). */
  public static final long DEFAULT_CONNECT_TIMEOUT_SECONDS = 2;

  /**
   * The duplicate window of a stream created by {@link Builder#ensureStream}: two minutes, longer
   * than a relay's publish timeout plus its lease, so that a retried publish is de-duplicated.
   */
  public static final long DEFAULT_DUPLICATE_WINDOW_SECONDS = 120;

  /** The replicas of a stream created by {@link Builder#ensureStream}; use 3 in a cluster. */
  public static final int DEFAULT_STREAM_REPLICAS = 1;

  private final NatsConnector connector;
  private final BatchPublisher publisher;

  private JetStreamTransport(Builder b, NatsCloudEventsCodec codec) {
    StreamSetup stream =
        b.streamName == null
            ? null
            : new StreamSetup(b.streamName, b.subjectFilter, b.duplicateWindow, b.streamReplicas);
    this.connector =
        new NatsConnector(b.url, "tandem", b.connectTimeout, b.connectionOptions, stream);
    this.publisher = new BatchPublisher(connector, b.subjectRouter, codec);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** {@code nats}. */
  @Override
  public String name() {
    return "nats";
  }

  /**
   * Publishes every event and waits at most {@code timeout} for all acknowledgements, including the
   * time to connect when there is no connection yet.
   *
   * @return one outcome per event, in the order of {@code events}
   * @throws IllegalStateException if this transport is closed
   */
  @Override
  public List<PublishOutcome> publish(List<Event> events, Duration timeout) {
    Transport.checkPublishArguments(events, timeout);
    if (connector.closed()) {
      throw new IllegalStateException("JetStreamTransport is closed");
    }
    if (events.isEmpty()) {
      return List.of();
    }
    return publisher.publish(events, timeout);
  }

  /**
   * Closes the connection without draining; acks still outstanding are abandoned, so a publish
   * still waiting sees its unacknowledged events fail as retriable. Later publishes throw {@link
   * IllegalStateException}. Idempotent.
   */
  @Override
  public void close() {
    connector.close();
  }

  /** Builds a {@link JetStreamTransport}; {@code url} and {@code source} are required. */
  public static final class Builder {
    private String url;
    private String source;
    private SubjectRouter subjectRouter = SubjectRouter.byAggregate();
    private String streamName;
    private String subjectFilter;
    private Duration duplicateWindow = Duration.ofSeconds(DEFAULT_DUPLICATE_WINDOW_SECONDS);
    private int streamReplicas = DEFAULT_STREAM_REPLICAS;
    private Duration connectTimeout = Duration.ofSeconds(DEFAULT_CONNECT_TIMEOUT_SECONDS);
    private Consumer<Options.Builder> connectionOptions = options -> {};

    private Builder() {}

    /**
     * The server to connect to, e.g. {@code "nats://127.0.0.1:4222"}, or several separated by
     * commas ({@code "nats://n1:4222,nats://n2:4222"}); {@code tls://} for TLS, credentials as
     * {@code nats://user:password@host:4222}. Required.
     */
    public Builder url(String url) {
      this.url = url;
      return this;
    }

    /**
     * The CloudEvents {@code source} of every event: a URI reference naming the producing service,
     * e.g. {@code /tandem/orders-service}. Required.
     */
    public Builder source(String source) {
      this.source = source;
      return this;
    }

    /** Chooses each event's subject; default {@link SubjectRouter#byAggregate()}. */
    public Builder subjectRouter(SubjectRouter subjectRouter) {
      this.subjectRouter = subjectRouter;
      return this;
    }

    /**
     * Creates stream {@code streamName} bound to {@code subjectFilter} (e.g. {@code
     * "tandem.order.>"}) when it does not exist, when the transport connects: file storage, the
     * {@linkplain #duplicateWindow duplicate window} and {@linkplain #streamReplicas replicas}
     * given here. An existing stream is used as it is, whatever its settings. Optional: without it,
     * the streams must exist, or publishes fail as {@code UNROUTABLE}.
     */
    public Builder ensureStream(String streamName, String subjectFilter) {
      this.streamName = streamName;
      this.subjectFilter = subjectFilter;
      return this;
    }

    /**
     * The duplicate window of a stream created by {@link #ensureStream}: how long JetStream
     * remembers a {@code Nats-Msg-Id}; default {@value #DEFAULT_DUPLICATE_WINDOW_SECONDS} s. Keep
     * it longer than the relay's publish timeout plus its lease duration.
     */
    public Builder duplicateWindow(Duration duplicateWindow) {
      this.duplicateWindow = duplicateWindow;
      return this;
    }

    /**
     * The replicas of a stream created by {@link #ensureStream}, 1 to 5; default {@value
     * #DEFAULT_STREAM_REPLICAS}. Use 3 in a cluster: an ack then means a quorum stored the event.
     */
    public Builder streamReplicas(int streamReplicas) {
      this.streamReplicas = streamReplicas;
      return this;
    }

    /**
     * How long opening a connection may take at most; default {@value
     * #DEFAULT_CONNECT_TIMEOUT_SECONDS} s. A publish never waits past its own timeout for it.
     */
    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = connectTimeout;
      return this;
    }

    /**
     * Further client settings (credentials file, TLS context, ...), applied to jnats's {@code
     * Options.Builder} before Tandem's own: the server list, the connect timeout, unlimited
     * reconnects, no reconnect buffer and the connection and error listeners, which win.
     */
    public Builder connectionOptions(Consumer<Options.Builder> connectionOptions) {
      this.connectionOptions = connectionOptions;
      return this;
    }

    /**
     * Validates the settings; does not connect.
     *
     * @throws IllegalArgumentException naming the first parameter that is missing or invalid
     */
    public JetStreamTransport build() {
      if (url == null || url.isBlank()) {
        throw new IllegalArgumentException("url must not be blank, e.g. \"nats://127.0.0.1:4222\"");
      }
      NatsCloudEventsCodec codec = NatsCloudEventsCodec.create(source); // validates source
      if (subjectRouter == null) {
        throw new IllegalArgumentException("subjectRouter must not be null");
      }
      if (streamName != null || subjectFilter != null) {
        Subjects.validateStreamName("ensureStream streamName", streamName);
        Subjects.validateFilter("ensureStream subjectFilter", subjectFilter);
      }
      if (duplicateWindow == null || duplicateWindow.isNegative() || duplicateWindow.isZero()) {
        throw new IllegalArgumentException(
            "duplicateWindow must be a positive duration, was " + duplicateWindow);
      }
      if (streamReplicas < 1 || streamReplicas > 5) {
        throw new IllegalArgumentException(
            "streamReplicas must be between 1 and 5, was " + streamReplicas);
      }
      if (connectTimeout == null || connectTimeout.isNegative() || connectTimeout.isZero()) {
        throw new IllegalArgumentException(
            "connectTimeout must be a positive duration, was " + connectTimeout);
      }
      if (connectionOptions == null) {
        throw new IllegalArgumentException("connectionOptions must not be null");
      }
      JetStreamTransport transport = new JetStreamTransport(this, codec);
      try {
        transport.connector.checkOptions();
      } catch (IllegalArgumentException e) {
        // No cause: the client's message may quote the URL, credentials included.
        throw new IllegalArgumentException(
            "url '"
                + NatsConnector.redact(url)
                + "' is refused: "
                + NatsConnector.redact(e.getMessage()));
      }
      return transport;
    }
  }
}

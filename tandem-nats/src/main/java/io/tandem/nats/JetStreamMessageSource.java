package io.tandem.nats;

import io.nats.client.JetStreamApiException;
import io.nats.client.Options;
import io.tandem.core.LagProbe;
import io.tandem.core.TandemException;
import io.tandem.core.spi.MessageSink;
import io.tandem.core.spi.MessageSource;
import io.tandem.nats.internal.NatsConnector;
import io.tandem.nats.internal.PullLoop;
import io.tandem.nats.internal.PullSettings;
import io.tandem.nats.internal.StreamSetup;
import io.tandem.nats.internal.Subjects;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Consumes a JetStream stream through a durable pull consumer for a consumer runner: a {@link
 * MessageSource} whose messages are the events {@link JetStreamTransport} published, decoded with
 * {@link NatsCloudEventsCodec}.
 *
 * <pre>{@code
 * JetStreamMessageSource source = JetStreamMessageSource.builder()
 *     .url("nats://127.0.0.1:4222")
 *     .stream("ORDERS")
 *     .durable("billing")                 // the consumer group
 *     .filterSubjects("tandem.order.>")   // optional: the whole stream by default
 *     .build();
 * source.start(runner);                   // runner is the MessageSink
 * ...
 * source.close();
 * }</pre>
 *
 * <p><b>The consumer.</b> {@link #start(MessageSink)} creates the durable consumer, or updates it
 * to these settings: pull, explicit acknowledgements, delivery of everything in the stream from its
 * first message (a new group reads the stream's history), the {@linkplain Builder#ackWait ack
 * wait}, {@linkplain Builder#maxAckPending max ack pending}, {@linkplain Builder#maxDeliver max
 * deliver} and filter subjects. All sources of one durable must be built with the same settings.
 * Several sources (threads, processes) on one durable share its messages: JetStream hands each
 * message to one of them. That spreads one aggregate's events over several sources, so the runner's
 * ordering guard (which applies versions in order and parks early ones) is what keeps each
 * aggregate's order.
 *
 * <p><b>Delivery.</b> The source's thread {@code tandem-nats-source-<durable>} pulls up to
 * {@linkplain Builder#batchSize batch size} messages at a time and takes each off the client as it
 * arrives; the thread {@code tandem-nats-source-<durable>-sink} hands them to the sink one by one,
 * in the order the server sent them, and may block there; the next pull is asked for only when the
 * sink took the last batch. {@link io.tandem.core.spi.InboundMessage#key()} is the {@code
 * ce-partitionkey} header (the aggregate id); {@code origin()} is {@code nats <stream>/<durable>
 * seq <stream sequence>}; {@code rawHeaders()} holds {@code subject}, {@code stream}, {@code
 * stream_sequence}, {@code delivered} and every header.
 *
 * <p><b>Back-pressure.</b> Max ack pending (default {@value #DEFAULT_MAX_ACK_PENDING}) bounds the
 * messages the server has delivered to the durable and that are not acknowledged yet, over all its
 * sources: once reached, it delivers nothing more until acknowledgements come. When the runner is
 * full, the sink blocks and the source stops pulling.
 *
 * <p><b>Acknowledgement.</b> {@code acknowledge()} sends an ack for that message alone, from any
 * thread; if the connection is down, nothing is sent and nothing is thrown. A message not
 * acknowledged within the ack wait is redelivered, to this source or another. While this source
 * runs, its thread {@code tandem-nats-source-<durable>-progress} tells the server every third of
 * the ack wait that the messages it holds (received, not yet acknowledged) are still in progress,
 * so a message waiting in a busy runner is not redelivered elsewhere; after the source closed or
 * its process died, what it held is redelivered one ack wait later. A short ack wait thus means a
 * quick takeover. Nothing is ever rejected: the runner dead-letters poison itself, so max deliver
 * is unlimited by default.
 *
 * <p><b>Failures.</b> {@link #start(MessageSink)} connects itself and throws {@link
 * TandemException} with the server's reason when it cannot (server unreachable, no such stream, the
 * durable exists with settings that cannot be updated). Later failures (connection lost, consumer
 * deleted, server restarting) are logged; the client reconnects by itself, and the source sets its
 * consumer up again after the {@linkplain Builder#reconnectDelay reconnect delay} and pulls on.
 * When the sink returns {@code false} the source stops pulling and its thread ends; the connection
 * stays open for outstanding acknowledgements until {@link #close()}.
 *
 * <p>Defaults: ack wait {@value #DEFAULT_ACK_WAIT_SECONDS} s, max ack pending {@value
 * #DEFAULT_MAX_ACK_PENDING}, batch size {@value #DEFAULT_BATCH_SIZE}, max deliver unlimited, no
 * filter, no stream set-up, connect timeout 2 s, close timeout 1 s, reconnect delay 1 s, lag
 * interval 5 s.
 *
 * <p>Thread-safe: {@link #close()} and {@link #isRunning()} may be called from any thread; {@link
 * #start(MessageSink)} once.
 */
public final class JetStreamMessageSource implements MessageSource {
  /** How long the server waits for an acknowledgement before redelivering: 30 s. */
  public static final long DEFAULT_ACK_WAIT_SECONDS = 30;

  /** Messages delivered to the durable and not yet acknowledged, at most: 256. */
  public static final int DEFAULT_MAX_ACK_PENDING = 256;

  /** Messages asked for by one pull: 64. */
  public static final int DEFAULT_BATCH_SIZE = 64;

  /** {@link Builder#maxDeliver(long)} for no limit, the default. */
  public static final long UNLIMITED = -1;

  /** How long opening the connection may take: 2 s. */
  public static final Duration DEFAULT_CONNECT_TIMEOUT =
      Duration.ofSeconds(JetStreamTransport.DEFAULT_CONNECT_TIMEOUT_SECONDS);

  /** How long {@link #close()} waits for the source thread, and then for the acks to be sent. */
  public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(1);

  /** How long the source waits before setting its consumer up again after a failure. */
  public static final Duration DEFAULT_RECONNECT_DELAY = Duration.ofSeconds(1);

  private final PullSettings settings;
  private final PullLoop loop;
  private boolean started; // guarded by this
  private boolean closed; // guarded by this

  private JetStreamMessageSource(PullSettings settings) {
    this.settings = settings;
    this.loop = new PullLoop(settings);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** {@code nats}. */
  @Override
  public String transport() {
    return "nats";
  }

  /**
   * {@code durable <d> on stream <s> (filter <f>, max ack pending <n>) at <url without password>}.
   */
  @Override
  public String describe() {
    return "durable "
        + settings.durable()
        + " on stream "
        + settings.stream()
        + " ("
        + (settings.filterSubjects().isEmpty()
            ? "every subject"
            : "filter " + String.join(", ", settings.filterSubjects()))
        + ", max ack pending "
        + settings.maxAckPending()
        + ") at "
        + NatsConnector.redact(settings.servers());
  }

  /** The stream this source consumes. */
  public String stream() {
    return settings.stream();
  }

  /** The durable consumer this source pulls from: its consumer group. */
  public String durable() {
    return settings.durable();
  }

  /**
   * Connects (creating the stream first with {@link Builder#ensureStream}), creates or updates the
   * durable consumer, starts the source thread, and returns.
   *
   * @throws IllegalStateException if already started or closed
   * @throws TandemException with the server's reason if the source cannot consume
   */
  @Override
  public synchronized void start(MessageSink sink) {
    Objects.requireNonNull(sink, "sink must not be null");
    if (closed) {
      throw new IllegalStateException("source " + describe() + " is closed");
    }
    if (started) {
      throw new IllegalStateException("source " + describe() + " is already started");
    }
    started = true;
    try {
      loop.start(sink);
    } catch (IOException | JetStreamApiException | TimeoutException | RuntimeException e) {
      throw new TandemException("cannot consume " + describe() + ": " + PullLoop.reason(e), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TandemException("interrupted while starting " + describe(), e);
    }
  }

  @Override
  public boolean isRunning() {
    return loop.running();
  }

  /**
   * Messages of the durable not processed yet, as of the last reading (every {@linkplain
   * Builder#lagInterval lag interval}, on the thread {@code tandem-nats-source-<durable>-lag}): the
   * consumer info's {@code num_pending} (in the stream, matching the filter, not delivered yet)
   * plus {@code num_ack_pending} (delivered to any source of the durable and not acknowledged).
   * Empty before the first reading and after a failed one. Never blocks.
   */
  @Override
  public OptionalLong lag() {
    return loop.lag();
  }

  /**
   * Stops pulling and closes the connection: the source thread is interrupted (it may be blocked in
   * the sink) and awaited at most the close timeout, the in-progress signals stop, and the
   * acknowledgements already sent are flushed (at most the close timeout) before the connection
   * closes. What was not acknowledged is redelivered after the ack wait; an acknowledgement after
   * this is dropped. Idempotent.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    loop.close();
  }

  @Override
  public String toString() {
    return "JetStreamMessageSource{" + describe() + "}";
  }

  /**
   * Builds a {@link JetStreamMessageSource}; {@code url}, {@code stream}, {@code durable} required.
   */
  public static final class Builder {
    private String url;
    private String stream;
    private String durable;
    private final List<String> filterSubjects = new ArrayList<>();
    private Duration ackWait = Duration.ofSeconds(DEFAULT_ACK_WAIT_SECONDS);
    private int maxAckPending = DEFAULT_MAX_ACK_PENDING;
    private int batchSize = DEFAULT_BATCH_SIZE;
    private long maxDeliver = UNLIMITED;
    private String ensureStreamSubjects;
    private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
    private Consumer<Options.Builder> connectionOptions = options -> {};
    private Duration closeTimeout = DEFAULT_CLOSE_TIMEOUT;
    private Duration reconnectDelay = DEFAULT_RECONNECT_DELAY;
    private Duration lagInterval = LagProbe.DEFAULT_INTERVAL;

    private Builder() {}

    /**
     * The server, as for {@link JetStreamTransport.Builder#url(String)}: {@code
     * "nats://127.0.0.1:4222"}, several separated by commas, {@code tls://} for TLS, credentials as
     * {@code nats://user:password@host:4222}. Required.
     */
    public Builder url(String url) {
      this.url = url;
      return this;
    }

    /** The stream to consume, e.g. {@code "ORDERS"}. Required. */
    public Builder stream(String stream) {
      this.stream = stream;
      return this;
    }

    /**
     * The durable consumer's name: one per consuming service (the consumer group), e.g. {@code
     * "billing"}. Sources with the same durable share its messages. Required.
     */
    public Builder durable(String durable) {
      this.durable = durable;
      return this;
    }

    /**
     * Only messages on these subjects, e.g. {@code "tandem.order.>"}; wildcards allowed; default
     * the whole stream. More than one needs nats-server 2.10 or later. Replaces earlier calls.
     */
    public Builder filterSubjects(String... filterSubjects) {
      Objects.requireNonNull(filterSubjects, "filterSubjects must not be null");
      this.filterSubjects.clear();
      this.filterSubjects.addAll(List.of(filterSubjects));
      return this;
    }

    /**
     * How long the server waits for a delivered message's acknowledgement before delivering it
     * again, after its last in-progress signal; default {@value #DEFAULT_ACK_WAIT_SECONDS} s. Also
     * how soon another source takes over what a crashed one held.
     */
    public Builder ackWait(Duration ackWait) {
      this.ackWait = ackWait;
      return this;
    }

    /**
     * Messages delivered to the durable (all its sources) and not yet acknowledged, at most;
     * default {@value #DEFAULT_MAX_ACK_PENDING}. The bound on messages in flight between the stream
     * and the committed inbox.
     */
    public Builder maxAckPending(int maxAckPending) {
      this.maxAckPending = maxAckPending;
      return this;
    }

    /**
     * Messages asked for by one pull, at most (never more than max ack pending); default {@value
     * #DEFAULT_BATCH_SIZE}.
     */
    public Builder batchSize(int batchSize) {
      this.batchSize = batchSize;
      return this;
    }

    /**
     * How often the server delivers one message at most, or {@link #UNLIMITED} (the default): the
     * runner dead-letters what it cannot apply and acknowledges it, so a limit is only a safety net
     * against a runner that never acknowledges. A message over the limit is dropped by JetStream.
     */
    public Builder maxDeliver(long maxDeliver) {
      this.maxDeliver = maxDeliver;
      return this;
    }

    /**
     * Creates the {@linkplain #stream stream}, bound to {@code subjectFilter} (e.g. {@code
     * "tandem.order.>"}), when it does not exist, on start: as {@link
     * JetStreamTransport.Builder#ensureStream} creates it (file storage, duplicate window {@value
     * JetStreamTransport#DEFAULT_DUPLICATE_WINDOW_SECONDS} s, one replica). An existing stream is
     * used as it is. Optional: without it the stream must exist.
     */
    public Builder ensureStream(String subjectFilter) {
      this.ensureStreamSubjects = subjectFilter;
      return this;
    }

    /** How long opening the connection may take; default 2 s. */
    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = connectTimeout;
      return this;
    }

    /**
     * Further client settings (credentials file, TLS context, ...), applied to jnats's {@code
     * Options.Builder} before Tandem's own (the server list, the connect timeout, unlimited
     * reconnects, no reconnect buffer, the listeners), which win.
     */
    public Builder connectionOptions(Consumer<Options.Builder> connectionOptions) {
      this.connectionOptions = connectionOptions;
      return this;
    }

    /**
     * How long {@link JetStreamMessageSource#close()} waits for the source thread, and then for the
     * acknowledgements already sent to be written; default 1 s.
     */
    public Builder closeTimeout(Duration closeTimeout) {
      this.closeTimeout = closeTimeout;
      return this;
    }

    /** How long to wait before setting the consumer up again after a failure; default 1 s. */
    public Builder reconnectDelay(Duration reconnectDelay) {
      this.reconnectDelay = reconnectDelay;
      return this;
    }

    /**
     * How often the source asks the server for the durable's consumer info, for {@link
     * JetStreamMessageSource#lag()}; default 5 s.
     */
    public Builder lagInterval(Duration lagInterval) {
      this.lagInterval = lagInterval;
      return this;
    }

    /**
     * Validates the settings; connects only on {@link JetStreamMessageSource#start}.
     *
     * @throws IllegalArgumentException naming the first parameter that is missing or invalid
     */
    public JetStreamMessageSource build() {
      if (url == null || url.isBlank()) {
        throw new IllegalArgumentException("url must not be blank, e.g. \"nats://127.0.0.1:4222\"");
      }
      Subjects.validateStreamName("stream", stream);
      Subjects.validateConsumerName("durable", durable);
      for (String filter : filterSubjects) {
        Subjects.validateFilter("filterSubjects", filter);
      }
      if (new HashSet<>(filterSubjects).size() != filterSubjects.size()) {
        throw new IllegalArgumentException(
            "filterSubjects must not repeat a subject, was " + filterSubjects);
      }
      positive("ackWait", ackWait);
      if (maxAckPending < 1) {
        throw new IllegalArgumentException(
            "maxAckPending must be at least 1, was " + maxAckPending);
      }
      if (batchSize < 1) {
        throw new IllegalArgumentException("batchSize must be at least 1, was " + batchSize);
      }
      if (maxDeliver != UNLIMITED && maxDeliver < 1) {
        throw new IllegalArgumentException(
            "maxDeliver must be at least 1, or UNLIMITED (-1), was " + maxDeliver);
      }
      StreamSetup setup = null;
      if (ensureStreamSubjects != null) {
        Subjects.validateFilter("ensureStream subjectFilter", ensureStreamSubjects);
        setup =
            new StreamSetup(
                stream,
                ensureStreamSubjects,
                Duration.ofSeconds(JetStreamTransport.DEFAULT_DUPLICATE_WINDOW_SECONDS),
                JetStreamTransport.DEFAULT_STREAM_REPLICAS);
      }
      positive("connectTimeout", connectTimeout);
      if (connectionOptions == null) {
        throw new IllegalArgumentException("connectionOptions must not be null");
      }
      positive("closeTimeout", closeTimeout);
      positive("reconnectDelay", reconnectDelay);
      LagProbe.checkInterval("lagInterval", lagInterval);
      PullSettings settings =
          new PullSettings(
              url,
              connectTimeout,
              connectionOptions,
              setup,
              stream,
              durable,
              List.copyOf(filterSubjects),
              ackWait,
              maxAckPending,
              batchSize,
              maxDeliver,
              closeTimeout,
              reconnectDelay,
              lagInterval);
      JetStreamMessageSource source = new JetStreamMessageSource(settings);
      try {
        source.loop.checkOptions();
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "url '"
                + NatsConnector.redact(url)
                + "' is refused: "
                + NatsConnector.redact(e.getMessage()),
            e);
      }
      return source;
    }

    private static void positive(String parameter, Duration value) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(
            parameter + " must be a positive duration, was " + value);
      }
    }
  }
}

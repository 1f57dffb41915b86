package io.tandem.inbox;

import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.JdbcException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Purges processed-event records ({@code tandem_inbox}) older than a retention period, in bounded
 * batches, each its own short transaction. A record is what turns a redelivered event into a no-op,
 * so it must outlive every way the broker can deliver that event again: the builder refuses a
 * retention shorter than the declared {@link Builder#maxReplayWindow maximum broker replay window}
 * (broker retention plus the longest recovery or reset you might do).
 *
 * <pre>{@code
 * InboxRetention retention = InboxRetention.builder()
 *     .dataSource(dataSource)
 *     .retention(Duration.ofDays(14))
 *     .maxReplayWindow(Duration.ofDays(7)) // e.g. Kafka retention.ms
 *     .build();
 * long wouldGo = retention.dryRun();
 * long purged = retention.run();
 * }</pre>
 *
 * <p>It never touches ordering positions (which keep dropping old versions after their records are
 * gone), parked events or dead letters. Defaults: retention {@value #DEFAULT_RETENTION_DAYS} days,
 * replay window {@value #DEFAULT_MAX_REPLAY_WINDOW_DAYS} days, batches of {@value
 * #DEFAULT_BATCH_SIZE} rows, at most {@value #DEFAULT_MAX_BATCHES} batches per run. Thread-safe.
 */
public final class InboxRetention {
  public static final long DEFAULT_RETENTION_DAYS = 14;
  public static final long DEFAULT_MAX_REPLAY_WINDOW_DAYS = 7;
  public static final int DEFAULT_BATCH_SIZE = 1000;
  public static final int DEFAULT_MAX_BATCHES = 100;

  private static final Logger LOG = LoggerFactory.getLogger(InboxRetention.class);

  private final DataSource dataSource;
  private final Dialect dialect;
  private final Duration retention;
  private final int batchSize;
  private final int maxBatches;

  private InboxRetention(Builder b) {
    this.dataSource = b.dataSource;
    this.dialect = b.dialect != null ? b.dialect : Dialect.of(b.dataSource);
    this.retention = b.retention;
    this.batchSize = b.batchSize;
    this.maxBatches = b.maxBatches;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The retention in force. */
  public Duration retention() {
    return retention;
  }

  /** Counts the records {@link #run()} would purge now, purging nothing. */
  public long dryRun() {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(dialect.inboxRetentionCount())) {
      ps.setLong(1, retention.toMillis());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new JdbcException("inbox retention dry run failed", e);
    }
  }

  /**
   * Purges eligible records in batches until none is left or {@code maxBatches} ran.
   *
   * @return the number of records purged
   */
  public long run() {
    long purged = 0;
    int batches = 0;
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(true);
      while (batches < maxBatches) {
        int deleted;
        try (PreparedStatement ps = c.prepareStatement(dialect.inboxRetentionDelete())) {
          ps.setLong(1, retention.toMillis());
          ps.setInt(2, batchSize);
          deleted = ps.executeUpdate();
        }
        batches++;
        purged += deleted;
        if (deleted < batchSize) {
          break;
        }
      }
    } catch (SQLException e) {
      throw new JdbcException("inbox retention failed after purging " + purged + " records", e);
    }
    LOG.info(
        "inbox retention: purged {} records older than {} in {} batches",
        purged,
        retention,
        batches);
    return purged;
  }

  /** Builds an {@link InboxRetention}; {@code dataSource} is required. */
  public static final class Builder {
    private DataSource dataSource;
    private Dialect dialect;
    private Duration retention = Duration.ofDays(DEFAULT_RETENTION_DAYS);
    private Duration maxReplayWindow = Duration.ofDays(DEFAULT_MAX_REPLAY_WINDOW_DAYS);
    private int batchSize = DEFAULT_BATCH_SIZE;
    private int maxBatches = DEFAULT_MAX_BATCHES;

    private Builder() {}

    /** The consumer's database. Required. */
    public Builder dataSource(DataSource dataSource) {
      this.dataSource = dataSource;
      return this;
    }

    /** The database family; detected when not set. */
    public Builder dialect(Dialect dialect) {
      this.dialect = dialect;
      return this;
    }

    /** How long records are kept after processing; default 14 days. */
    public Builder retention(Duration retention) {
      this.retention = retention;
      return this;
    }

    /**
     * The longest time after which the broker may still deliver an event again (its retention, plus
     * offset resets and recoveries you might do); default 7 days. The retention may not be shorter.
     */
    public Builder maxReplayWindow(Duration maxReplayWindow) {
      this.maxReplayWindow = maxReplayWindow;
      return this;
    }

    /** Records per delete; default 1000. */
    public Builder batchSize(int batchSize) {
      this.batchSize = batchSize;
      return this;
    }

    /** Batches per {@link #run()}; default 100. */
    public Builder maxBatches(int maxBatches) {
      this.maxBatches = maxBatches;
      return this;
    }

    /**
     * Validates the settings.
     *
     * @throws IllegalArgumentException naming the first invalid parameter, in particular a
     *     retention shorter than the replay window
     */
    public InboxRetention build() {
      if (dataSource == null) {
        throw new IllegalArgumentException("dataSource is required");
      }
      checkSettings();
      return new InboxRetention(this);
    }

    /**
     * Checks every setting but the data source, so that a tool can refuse bad settings before it
     * connects; {@link #build()} runs the same checks.
     *
     * @throws IllegalArgumentException naming the first invalid parameter
     */
    public Builder checkSettings() {
      if (retention == null || retention.isNegative() || retention.isZero()) {
        throw new IllegalArgumentException(
            "retention must be a positive duration, was " + retention);
      }
      if (maxReplayWindow == null || maxReplayWindow.isNegative()) {
        throw new IllegalArgumentException(
            "maxReplayWindow must be zero or positive, was " + maxReplayWindow);
      }
      if (retention.compareTo(maxReplayWindow) < 0) {
        throw new IllegalArgumentException(
            "retention "
                + retention
                + " is shorter than the broker's maximum replay window (maxReplayWindow) "
                + maxReplayWindow
                + ": an event redelivered after its record was purged would be applied twice."
                + " Keep records at least as long as the broker can deliver again.");
      }
      if (batchSize < 1 || batchSize > 100_000) {
        throw new IllegalArgumentException(
            "batchSize must be between 1 and 100000, was " + batchSize);
      }
      if (maxBatches < 1) {
        throw new IllegalArgumentException("maxBatches must be at least 1, was " + maxBatches);
      }
      return this;
    }
  }
}

package io.tandem.outbox;

import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.JdbcException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.function.LongConsumer;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes published outbox rows older than a retention period, in bounded batches, below a
 * conservative watermark: the smallest row id still pending. It never deletes an unpublished,
 * quarantined or skipped row (the database's own guard refuses that too), and a dry run reports
 * what it would delete without deleting anything.
 *
 * <pre>{@code
 * OutboxRetention retention = OutboxRetention.builder()
 *     .dataSource(dataSource)
 *     .retention(Duration.ofDays(7))
 *     .build();
 * RetentionResult preview = retention.dryRun();
 * RetentionResult done = retention.run();
 * }</pre>
 *
 * <p>Defaults: retention {@value #DEFAULT_RETENTION_DAYS} days, batches of {@value
 * #DEFAULT_BATCH_SIZE} rows, at most {@value #DEFAULT_MAX_BATCHES} batches per run (run it again
 * for more). Keep published rows at least as long as consumers may need a replay from the broker.
 * Thread-safe; run it from one scheduler (concurrent runs are safe, just wasteful).
 */
public final class OutboxRetention {
  public static final long DEFAULT_RETENTION_DAYS = 7;
  public static final int DEFAULT_BATCH_SIZE = 1000;
  public static final int DEFAULT_MAX_BATCHES = 100;

  private static final Logger log = LoggerFactory.getLogger(OutboxRetention.class);

  private final DataSource dataSource;
  private final Dialect dialect;
  private final Duration retention;
  private final int batchSize;
  private final int maxBatches;

  private OutboxRetention(Builder b) {
    this.dataSource = b.dataSource;
    this.dialect = b.dialect;
    this.retention = b.retention;
    this.batchSize = b.batchSize;
    this.maxBatches = b.maxBatches;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Counts what {@link #run()} would delete now, deleting nothing. */
  public RetentionResult dryRun() {
    try (Connection c = dataSource.getConnection()) {
      long watermark = watermark(c);
      long count = dialect.operations().retentionCount(c, retention, watermark);
      return new RetentionResult(true, count, watermark, 0);
    } catch (SQLException e) {
      throw new JdbcException("outbox retention dry run failed", e);
    }
  }

  /** Deletes eligible rows in batches (each its own transaction, auto-commit). */
  public RetentionResult run() {
    return run(deletedSoFar -> {});
  }

  /**
   * As {@link #run()}, calling {@code afterBatch} with the rows deleted so far after each committed
   * batch (a progress line, say).
   */
  public RetentionResult run(LongConsumer afterBatch) {
    Objects.requireNonNull(afterBatch, "afterBatch");
    long deleted = 0;
    int batches = 0;
    long watermark;
    try (Connection c = dataSource.getConnection()) {
      watermark = watermark(c);
      while (batches < maxBatches) {
        int n = dialect.operations().retentionDelete(c, retention, watermark, batchSize);
        batches++;
        deleted += n;
        afterBatch.accept(deleted);
        if (n < batchSize) {
          break;
        }
      }
    } catch (SQLException e) {
      throw new JdbcException("outbox retention failed after deleting some batches", e);
    }
    log.info(
        "outbox retention deleted {} published rows older than {} below id {} in {} batches",
        deleted,
        retention,
        watermark,
        batches);
    return new RetentionResult(false, deleted, watermark, batches);
  }

  private long watermark(Connection c) throws SQLException {
    return dialect.operations().retentionWatermark(c);
  }

  /**
   * What a retention run did or would do.
   *
   * @param dryRun true when nothing was deleted on purpose
   * @param rows rows deleted, or that would be deleted
   * @param watermark only rows with a smaller id were eligible
   * @param batches delete statements run
   */
  public record RetentionResult(boolean dryRun, long rows, long watermark, int batches) {}

  /** Builds an {@link OutboxRetention}; {@code dataSource} is required. */
  public static final class Builder {
    private DataSource dataSource;
    private Dialect dialect;
    private Duration retention = Duration.ofDays(DEFAULT_RETENTION_DAYS);
    private int batchSize = DEFAULT_BATCH_SIZE;
    private int maxBatches = DEFAULT_MAX_BATCHES;

    private Builder() {}

    public Builder dataSource(DataSource dataSource) {
      this.dataSource = dataSource;
      return this;
    }

    public Builder dialect(Dialect dialect) {
      this.dialect = dialect;
      return this;
    }

    /** Published rows younger than this stay; at least one minute. */
    public Builder retention(Duration retention) {
      this.retention = retention;
      return this;
    }

    /** Rows per delete statement, 1 to 100,000. */
    public Builder batchSize(int batchSize) {
      this.batchSize = batchSize;
      return this;
    }

    /** Delete statements per run, at least 1. */
    public Builder maxBatches(int maxBatches) {
      this.maxBatches = maxBatches;
      return this;
    }

    public OutboxRetention build() {
      if (dataSource == null) {
        throw new IllegalArgumentException("dataSource is required");
      }
      checkSettings();
      if (dialect == null) {
        dialect = Dialect.of(dataSource);
      }
      return new OutboxRetention(this);
    }

    /**
     * Checks every setting but the data source, so that a tool can refuse bad settings before it
     * connects; {@link #build()} runs the same checks.
     *
     * @throws IllegalArgumentException naming the first invalid setting
     */
    public Builder checkSettings() {
      if (retention == null || retention.compareTo(Duration.ofMinutes(1)) < 0) {
        throw new IllegalArgumentException(
            "retention must be at least one minute, was "
                + retention
                + " (published rows younger than that are kept)");
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

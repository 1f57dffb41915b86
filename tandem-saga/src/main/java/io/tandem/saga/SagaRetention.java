package io.tandem.saga;

import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.JdbcException;
import io.tandem.jdbc.Transactions;
import io.tandem.saga.internal.EndedSagas;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Deletes finished saga instances ({@link SagaStatus#COMPLETED} or {@link SagaStatus#COMPENSATED})
 * and their step logs once they ended longer ago than the retention, in bounded batches. Running,
 * compensating and STUCK instances are never deleted (the delete itself checks the status).
 *
 * <pre>{@code
 * SagaRetention retention =
 *     SagaRetention.builder().dataSource(db).retention(Duration.ofDays(30)).build();
 * long eligible = retention.dryRun();   // counts, deletes nothing
 * long purged = retention.run();
 * }</pre>
 *
 * <p>Defaults: retention {@value #DEFAULT_RETENTION_DAYS} days, batches of {@value
 * #DEFAULT_BATCH_SIZE}, at most {@value #DEFAULT_MAX_BATCHES} batches per run. Thread-safe.
 */
public final class SagaRetention {
  public static final long DEFAULT_RETENTION_DAYS = 30;
  public static final int DEFAULT_BATCH_SIZE = 500;
  public static final int DEFAULT_MAX_BATCHES = 100;

  private final DataSource dataSource;
  private final EndedSagas store;
  private final Duration retention;
  private final Clock clock;
  private final int batchSize;
  private final int maxBatches;

  private SagaRetention(Builder b) {
    this.dataSource = b.dataSource;
    this.store = new EndedSagas(b.dialect != null ? b.dialect : Dialect.of(b.dataSource));
    this.retention = b.retention;
    this.clock = b.clock;
    this.batchSize = b.batchSize;
    this.maxBatches = b.maxBatches;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Counts the instances eligible now, deleting nothing; one {@link #run()} deletes at most {@code
   * batchSize × maxBatches} of them.
   */
  public long dryRun() {
    try (Connection conn = dataSource.getConnection()) {
      return store.countFinished(conn, clock.instant().minus(retention));
    } catch (SQLException e) {
      throw new JdbcException("saga retention dry run failed", e);
    }
  }

  /** Deletes eligible instances; returns how many. */
  public long run() {
    long deleted = 0;
    try {
      for (int batch = 0; batch < maxBatches; batch++) {
        int n =
            Transactions.inTransaction(
                dataSource,
                conn -> {
                  List<UUID> ids =
                      store.finished(conn, clock.instant().minus(retention), batchSize);
                  int count = 0;
                  for (UUID id : ids) {
                    if (store.delete(conn, id)) {
                      count++;
                    }
                  }
                  return count;
                });
        deleted += n;
        if (n < batchSize) {
          break;
        }
      }
    } catch (SQLException e) {
      throw new JdbcException("saga retention failed after deleting " + deleted + " instances", e);
    }
    return deleted;
  }

  /** Builds a {@link SagaRetention}; dataSource is required. */
  public static final class Builder {
    private DataSource dataSource;
    private Dialect dialect;
    private Duration retention = Duration.ofDays(DEFAULT_RETENTION_DAYS);
    private Clock clock = Clock.systemUTC();
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

    /** How long after it ended a saga is kept; default 30 days. */
    public Builder retention(Duration retention) {
      this.retention = retention;
      return this;
    }

    public Builder clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    public Builder batchSize(int batchSize) {
      this.batchSize = batchSize;
      return this;
    }

    public Builder maxBatches(int maxBatches) {
      this.maxBatches = maxBatches;
      return this;
    }

    public SagaRetention build() {
      if (dataSource == null) {
        throw new IllegalArgumentException("dataSource is required");
      }
      checkSettings();
      return new SagaRetention(this);
    }

    /**
     * Checks every setting but the data source, so that a tool can refuse bad settings before it
     * connects; {@link #build()} runs the same checks.
     *
     * @throws IllegalArgumentException naming the first invalid setting
     */
    public Builder checkSettings() {
      if (retention == null || retention.isNegative() || retention.isZero()) {
        throw new IllegalArgumentException("retention must be positive, was " + retention);
      }
      if (batchSize < 1 || maxBatches < 1) {
        throw new IllegalArgumentException("batchSize and maxBatches must be at least 1");
      }
      return this;
    }
  }
}

package io.tandem.cdc;

import io.micrometer.core.instrument.MeterRegistry;
import io.tandem.cdc.internal.PostgresCdcDialect;
import io.tandem.core.FaultInjector;
import io.tandem.core.RetryPolicy;
import io.tandem.core.spi.Transport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import javax.sql.DataSource;

/**
 * A {@link CdcRelay}'s settings, validated and with every default resolved; built by {@link
 * CdcRelay.Builder}, whose methods document each one. Immutable; {@link #toString()} leaves out the
 * password.
 */
public record CdcRelaySettings(
    String jdbcUrl,
    String user,
    String password,
    DataSource dataSource,
    Transport transport,
    String relayId,
    String slotName,
    String publicationName,
    boolean createPublication,
    Duration heartbeatInterval,
    Duration offsetFlushInterval,
    Duration publishTimeout,
    Duration drainInterval,
    Duration monitorInterval,
    Duration startTimeout,
    long lagAlertBytes,
    Duration lagAlertAge,
    RetryPolicy retryPolicy,
    FaultInjector faults,
    MeterRegistry meters,
    ThreadFactory threadFactory,
    Map<String, String> engineProperties,
    long serverId,
    Path schemaHistoryDirectory) {

  /** Validates every setting; the message names the setting and the bad value. */
  public CdcRelaySettings {
    if (jdbcUrl == null
        || !(jdbcUrl.startsWith("jdbc:postgresql:") || jdbcUrl.startsWith("jdbc:mariadb:"))) {
      throw new IllegalArgumentException(
          "jdbcUrl must be a jdbc:postgresql: URL (the CDC relay reads PostgreSQL's WAL) or a"
              + " jdbc:mariadb: URL (MariaDB's binlog), but was "
              + (jdbcUrl == null ? "null" : "'" + redacted(jdbcUrl) + "'"));
    }
    Objects.requireNonNull(transport, "transport");
    Objects.requireNonNull(dataSource, "dataSource");
    Objects.requireNonNull(relayId, "relayId");
    PostgresCdcDialect.identifier("slotName", slotName);
    PostgresCdcDialect.identifier("publicationName", publicationName);
    positive("heartbeatInterval", heartbeatInterval);
    positive("offsetFlushInterval", offsetFlushInterval);
    positive("publishTimeout", publishTimeout);
    positive("drainInterval", drainInterval);
    positive("monitorInterval", monitorInterval);
    positive("startTimeout", startTimeout);
    positive("lagAlertAge", lagAlertAge);
    if (lagAlertBytes <= 0) {
      throw new IllegalArgumentException("lagAlertBytes must be > 0, but was " + lagAlertBytes);
    }
    if (serverId < 1 || serverId > 4_294_967_295L) {
      throw new IllegalArgumentException(
          "serverId must be 1..4294967295 (a MariaDB server_id), but was " + serverId);
    }
    Objects.requireNonNull(retryPolicy, "retryPolicy");
    Objects.requireNonNull(faults, "faultInjector");
    Objects.requireNonNull(meters, "meterRegistry");
    Objects.requireNonNull(threadFactory, "threadFactory");
    Objects.requireNonNull(schemaHistoryDirectory, "schemaHistoryDirectory");
    engineProperties = Map.copyOf(engineProperties);
  }

  /** Whether the relay reads MariaDB's binlog (else PostgreSQL's WAL). */
  public boolean mariaDb() {
    return jdbcUrl.startsWith("jdbc:mariadb:");
  }

  @Override
  public String toString() {
    return "CdcRelaySettings[jdbcUrl="
        + redacted(jdbcUrl)
        + ", user="
        + user
        + ", relayId="
        + relayId
        + ", slotName="
        + slotName
        + ", publicationName="
        + publicationName
        + ", transport="
        + transport.name()
        + "]";
  }

  private static String redacted(String url) {
    return url.replaceAll("password=[^&]*", "password=***");
  }

  private static void positive(String name, Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be a positive duration, but was " + value);
    }
  }
}

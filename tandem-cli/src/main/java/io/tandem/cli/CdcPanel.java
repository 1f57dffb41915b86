package io.tandem.cli;

import io.tandem.cdc.CdcOperations;
import io.tandem.cdc.CdcRelay;
import io.tandem.cdc.CdcStatus;
import io.tandem.core.ErrorSummary;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;

/** The dashboard's view of one CDC relay's replication slot: lag, activity, last publish. */
final class CdcPanel implements DashboardPanel {
  private final CdcOperations cdc;
  private final String slot;

  CdcPanel(DataSource dataSource, String slot) {
    this.cdc = new CdcOperations(dataSource);
    this.slot = slot;
  }

  @Override
  public String name() {
    return "cdc";
  }

  @Override
  public Object read() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("slot", slot);
    try {
      CdcStatus s =
          cdc.status(
              slot,
              CdcRelay.DEFAULT_LAG_ALERT_BYTES,
              Duration.ofSeconds(CdcRelay.DEFAULT_LAG_ALERT_SECONDS));
      m.put("exists", s.slotExists());
      m.put("active", s.slotActive());
      m.put("lagBytes", s.slotLagBytes());
      m.put("lagging", s.lagging());
      m.put("lastPublishedAt", s.lastPublishedAt().map(Object::toString).orElse(null));
      m.put("relayId", s.relayId().orElse(null));
      m.put("pending", s.pending());
      m.put("problem", s.problem().orElse(null));
    } catch (RuntimeException e) {
      m.put("problem", "cannot read the slot: " + ErrorSummary.of(e));
    }
    return m;
  }
}

package io.tandem.bench;

import io.tandem.core.Event;
import io.tandem.core.FaultInjector;
import io.tandem.inbox.InboxProcessor;
import io.tandem.outbox.Outbox;
import io.tandem.outbox.OutboxRelay;
import io.tandem.testkit.KafkaBroker;
import java.sql.Connection;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The transfer as outbox + inbox: the debit and a TransferDebited event commit in one local
 * PostgreSQL transaction; the relay publishes the event to Kafka; the ledger's consumer credits it
 * on MariaDB through its inbox (once per event id).
 */
final class CompareOutbox implements CompareApproach {
  private static final String EVENT = "TransferDebited";

  /** The event's payload. */
  public record Debited(String id, String account) {}

  private final TransferDatabases db;
  private final CompareProbe probe;
  private final CompareWiring wiring;
  private final Outbox outbox = Outbox.create();
  private final AtomicBoolean crashNextClaim = new AtomicBoolean();
  private OutboxRelay relay;

  CompareOutbox(
      TransferDatabases db, CompareProbe probe, KafkaBroker kafka, String prefix, int lanes) {
    this.db = db;
    this.probe = probe;
    this.wiring = new CompareWiring(kafka, prefix);
    kafka.createTopic(wiring.topic("transfer"), SagaBenchSystem.PARTITIONS);
    InboxProcessor credit =
        InboxProcessor.builder()
            .dataSource(db.mariaPool)
            .consumer("ledger")
            .on(
                EVENT,
                (conn, event) -> {
                  Debited d = event.payloadAs(Debited.class);
                  TransferDatabases.update(conn, TransferDatabases.CREDIT, 1, d.account());
                  probe.creditApplied(d.id());
                })
            .faultInjector(probe.afterCommit())
            .build();
    wiring.consumer(credit, "transfer", lanes);
    relay = wiring.relay(db.pgPool, "compare-outbox-1", crashOnClaim());
  }

  /**
   * The relay's fault point, armed by a kill: the relay dies after claiming, holding its leases.
   */
  private FaultInjector crashOnClaim() {
    return point -> {
      if (point.equals(FaultInjector.RELAY_AFTER_CLAIM)
          && crashNextClaim.compareAndSet(true, false)) {
        throw new FaultInjector.SimulatedCrash(point);
      }
    };
  }

  @Override
  public String name() {
    return "outbox";
  }

  @Override
  public void transfer(String id, String account) throws Exception {
    try (Connection c = db.pgPool.getConnection()) {
      c.setAutoCommit(false);
      TransferDatabases.update(c, TransferDatabases.DEBIT, 1, account);
      long locked = System.nanoTime();
      outbox.append(
          c,
          Event.builder()
              .aggregate("transfer", id, 1)
              .eventType(EVENT)
              .payload("{\"id\":\"" + id + "\",\"account\":\"" + account + "\"}")
              .build());
      c.commit();
      probe.lockHeld(locked);
    }
  }

  @Override
  public long killMidTransfer(String id, String account) throws Exception {
    crashNextClaim.set(true);
    transfer(id, account);
    // The relay dies after claiming the event; a new relay takes its partitions once their leases
    // expire.
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (crashNextClaim.get() && System.nanoTime() < deadline) {
      Thread.sleep(5); // the relay claims within its wake-up; this only paces the check
    }
    long killed = System.nanoTime();
    relay = wiring.relay(db.pgPool, "compare-outbox-2", FaultInjector.NONE);
    return killed;
  }

  @Override
  public String killDescription() {
    return "relay killed after claiming the event; a new relay takes its partitions when the"
        + " lease expires ("
        + OutboxRelay.DEFAULT_LEASE_SECONDS
        + " s)";
  }

  @Override
  public void close() {
    wiring.close();
  }
}

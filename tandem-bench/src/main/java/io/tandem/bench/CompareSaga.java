package io.tandem.bench;

import io.tandem.inbox.ConsumerRunner;
import io.tandem.saga.SagaDefinition;
import io.tandem.saga.SagaOrchestrator;
import io.tandem.saga.SagaParticipant;
import io.tandem.saga.StepResult;
import io.tandem.testkit.KafkaBroker;
import java.sql.SQLException;

/**
 * The transfer as an orchestrated saga: the orchestrator (its state and outbox in the PostgreSQL
 * database) sends Debit to the accounts participant (PostgreSQL; compensation Refund), then Credit
 * to the ledger participant (MariaDB, the pivot). Each service commits locally; commands and
 * replies travel through the outboxes, relays, Kafka and inboxes.
 */
final class CompareSaga implements CompareApproach {
  static final String TYPE = "transfer";

  /** The saga's data. */
  public record Transfer(String id, String account) {}

  static final SagaDefinition<Transfer> DEFINITION =
      SagaDefinition.builder(TYPE, Transfer.class)
          .compensatable("debit", "debit", "Debit", "Refund")
          .pivot("credit", "credit", "Credit")
          .build();

  private final TransferDatabases db;
  private final CompareWiring wiring;
  private final int lanes;
  private SagaOrchestrator orchestrator;
  private ConsumerRunner replies;

  CompareSaga(
      TransferDatabases db, CompareProbe probe, KafkaBroker kafka, String prefix, int lanes) {
    this.db = db;
    this.lanes = lanes;
    this.wiring = new CompareWiring(kafka, prefix);
    for (String topic : new String[] {"debit", "credit", "replies"}) {
      kafka.createTopic(wiring.topic(topic), SagaBenchSystem.PARTITIONS);
    }
    SagaParticipant debit =
        SagaParticipant.builder()
            .dataSource(db.pgPool)
            .name("debit")
            .command(
                "Debit",
                (conn, cmd) -> {
                  TransferDatabases.update(
                      conn, TransferDatabases.DEBIT, 1, cmd.dataAs(Transfer.class).account());
                  probe.debitBegun();
                  return StepResult.success();
                })
            .compensation(
                "Refund",
                (conn, cmd) -> {
                  TransferDatabases.update(
                      conn, TransferDatabases.REFUND, 1, cmd.dataAs(Transfer.class).account());
                  return StepResult.success();
                })
            .faultInjector(probe.afterCommit())
            .build();
    SagaParticipant credit =
        SagaParticipant.builder()
            .dataSource(db.mariaPool)
            .name("credit")
            .command(
                "Credit",
                (conn, cmd) -> {
                  Transfer t = cmd.dataAs(Transfer.class);
                  TransferDatabases.update(conn, TransferDatabases.CREDIT, 1, t.account());
                  probe.creditApplied(t.id());
                  return StepResult.success();
                })
            .faultInjector(probe.afterCommit())
            .build();
    wiring.relay(db.pgPool, "compare-saga-pg", io.tandem.core.FaultInjector.NONE);
    wiring.relay(db.mariaPool, "compare-saga-maria", io.tandem.core.FaultInjector.NONE);
    wiring.consumer(debit.processor(), "debit", lanes);
    wiring.consumer(credit.processor(), "credit", lanes);
    startOrchestrator();
  }

  private void startOrchestrator() {
    orchestrator =
        SagaOrchestrator.builder()
            .dataSource(db.pgPool)
            .name("transfer-orchestrator")
            .replyTo("replies")
            .definition(DEFINITION)
            .build();
    replies = wiring.consumer(orchestrator.replyProcessor(), "replies", lanes);
    orchestrator.startTimer();
  }

  @Override
  public String name() {
    return "saga";
  }

  @Override
  public void transfer(String id, String account) {
    orchestrator.start(TYPE, new Transfer(id, account));
  }

  @Override
  public long killMidTransfer(String id, String account) throws SQLException {
    // The orchestrator dies right after starting the saga (its Debit command is committed in its
    // outbox); a new orchestrator instance takes its replies over.
    orchestrator.start(TYPE, new Transfer(id, account));
    long killed = System.nanoTime();
    replies.close();
    orchestrator.close();
    startOrchestrator();
    return killed;
  }

  @Override
  public String killDescription() {
    return "orchestrator stopped right after starting the saga; a new instance takes its replies"
        + " over (Kafka group rebalance, step timeout "
        + DEFINITION.stepTimeout().toSeconds()
        + " s)";
  }

  @Override
  public void close() {
    wiring.close();
    if (orchestrator != null) {
      orchestrator.close();
    }
  }
}

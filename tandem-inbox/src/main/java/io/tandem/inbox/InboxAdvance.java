package io.tandem.inbox;

import java.time.Instant;

/**
 * An operator's decision, kept in {@code tandem_inbox_advance}, to move a consumer's position for
 * one aggregate past versions that will never arrive (for instance an event skipped at the producer
 * with {@code tandem outbox skip}): the versions above {@code fromVersion} up to {@code toVersion}
 * were never applied by this consumer. Never deleted by Tandem.
 *
 * @param id the record's id
 * @param fromVersion the position before the advance (the last version applied)
 * @param toVersion the position after it
 * @param reason why, as the operator gave it
 * @param advancedBy who (the operating-system user for the CLI, or what the caller passed)
 * @param advancedAt when, by the database's clock
 */
public record InboxAdvance(
    long id,
    String consumer,
    String aggregateType,
    String aggregateId,
    long fromVersion,
    long toVersion,
    String reason,
    String advancedBy,
    Instant advancedAt) {}

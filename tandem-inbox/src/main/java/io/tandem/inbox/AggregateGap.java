package io.tandem.inbox;

import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;

/**
 * An aggregate whose later events wait, parked, for a version the consumer has not applied.
 *
 * @param lastApplied the last version applied; empty when none was
 * @param waitingFor the version the consumer needs next ({@code lastApplied + 1})
 * @param firstParked the lowest parked version
 * @param parked how many events wait
 * @param waitingSince when the oldest of them was parked
 * @param waiting how long it has waited, by the database's clock
 * @param blockingDeadLetter the id of an open dead letter of this aggregate when the missing
 *     version (or an earlier one) sits in the dead-letter table; empty when it simply has not
 *     arrived
 * @param explanation a sentence for operators saying why the aggregate waits
 */
public record AggregateGap(
    String aggregateType,
    String aggregateId,
    OptionalLong lastApplied,
    long waitingFor,
    long firstParked,
    long parked,
    Instant waitingSince,
    Duration waiting,
    OptionalLong blockingDeadLetter,
    String explanation) {}

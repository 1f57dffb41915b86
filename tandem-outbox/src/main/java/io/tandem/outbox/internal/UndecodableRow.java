package io.tandem.outbox.internal;

/**
 * A due outbox row that does not hold a valid event: the relay quarantines it instead of publishing
 * it. The aggregate's raw type and id hold back the row's later versions.
 *
 * @param rowId the row's id
 * @param partition its relay partition, whose epoch fences the quarantine
 * @param eventId the {@code event_id} column as text (null if missing)
 * @param aggregateType the {@code aggregate_type} column as stored (null if missing)
 * @param aggregateId the {@code aggregate_id} column as stored (null if missing)
 * @param aggregateVersion the {@code aggregate_version} column (0 if missing)
 * @param reason why it is not an event: the rule it breaks and the value, for {@code last_error}
 */
public record UndecodableRow(
    long rowId,
    int partition,
    String eventId,
    String aggregateType,
    String aggregateId,
    long aggregateVersion,
    String reason)
    implements ClaimedRow {}

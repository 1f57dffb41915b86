package io.tandem.outbox.internal;

import io.tandem.core.Event;

/**
 * A due outbox row read by the relay: its row id, partition, the event, and the number of the
 * attempt this publication is (previous attempts + 1).
 */
public record ClaimedEvent(long rowId, int partition, Event event, int attempt)
    implements ClaimedRow {}

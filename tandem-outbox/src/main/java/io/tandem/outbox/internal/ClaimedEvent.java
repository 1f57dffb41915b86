package io.tandem.outbox.internal;

import io.tandem.core.Event;

/** An outbox row claimed by a relay: its row id, the event, and the attempt this claim is. */
public record ClaimedEvent(long rowId, Event event, int attempt) {}

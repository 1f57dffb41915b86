/**
 * The transactional outbox: {@link io.tandem.outbox.Outbox#append} writes an event in the caller's
 * transaction, and the {@link io.tandem.outbox.OutboxRelay} publishes committed events afterwards,
 * at least once, marking each published only after the broker acknowledged it.
 */
package io.tandem.outbox;

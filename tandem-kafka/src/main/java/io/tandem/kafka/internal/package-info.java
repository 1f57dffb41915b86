/**
 * Internals of the Kafka transport: producer and consumer configuration, error classification, the
 * consumer's poll loop, and the poll thread, hand-over thread and per-partition offset tracking of
 * the message source. Not API; may change in any release.
 */
package io.tandem.kafka.internal;

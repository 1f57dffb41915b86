/**
 * Internals of the Kafka transport: producer and consumer configuration, error classification, the
 * consumer's poll loop. Not API; may change in any release.
 */
package io.tandem.kafka.internal;

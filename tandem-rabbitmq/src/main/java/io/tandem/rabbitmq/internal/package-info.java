/**
 * Internals of the RabbitMQ transport: connection settings, the publisher's connection and its pool
 * of confirm-mode channels, the per-batch confirm bookkeeping, the message source's consumer
 * session and receiving loop, error classification and exchange-name rules. Not API; may change in
 * any release.
 */
package io.tandem.rabbitmq.internal;

/**
 * Internals of the RabbitMQ transport: the connection and its pool of confirm-mode channels, the
 * per-batch confirm bookkeeping, error classification and exchange-name rules. Not API; may change
 * in any release.
 */
package io.tandem.rabbitmq.internal;

/**
 * Internals of the NATS JetStream transport: the lazily opened connection, subject rules, header
 * value encoding, error classification and the batch publisher. Not API; may change in any release.
 */
package io.tandem.nats.internal;

/**
 * Internals of the NATS JetStream transport and message source: the lazily opened connection,
 * subject rules, header value encoding, error classification, the batch publisher, and the source's
 * pull loop with its in-progress signals. Not API; may change in any release.
 */
package io.tandem.nats.internal;

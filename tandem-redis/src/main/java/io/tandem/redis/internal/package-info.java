/**
 * Internals of the Redis Streams transport: connection pool settings, stream key rules, error
 * classification, the pipelined batch publisher, and the consumer group reader with its
 * acknowledgements. Not API; may change in any release.
 */
package io.tandem.redis.internal;

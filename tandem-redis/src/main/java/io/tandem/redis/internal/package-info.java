/**
 * Internals of the Redis Streams transport: connection pool settings, stream key rules, error
 * classification and the pipelined batch publisher. Not API; may change in any release.
 */
package io.tandem.redis.internal;

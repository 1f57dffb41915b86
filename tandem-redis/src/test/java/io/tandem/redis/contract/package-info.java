/**
 * The consumer runner contract (tandem-inbox) run with Redis Streams on both consumer databases.
 */
package io.tandem.redis.contract;

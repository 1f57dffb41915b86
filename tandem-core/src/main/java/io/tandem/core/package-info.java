/**
 * Tandem's core API: the immutable {@link io.tandem.core.Event} envelope, UUIDv7 {@link
 * io.tandem.core.EventId event ids}, the error hierarchy rooted at {@link
 * io.tandem.core.TandemException}, the retry policy and the fault points used by drills.
 *
 * <p>Everything here is free of JDBC and broker clients; the other modules build on it.
 */
package io.tandem.core;

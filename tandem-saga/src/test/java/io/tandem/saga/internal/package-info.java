/**
 * Unit tests of the saga internals as pure logic: the state machine as a function, the replies
 * awaiting their commit; no database, no broker, time from a test clock.
 */
package io.tandem.saga.internal;

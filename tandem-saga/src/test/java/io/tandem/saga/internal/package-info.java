/** Unit tests of the saga state machine as a pure function: no database, no broker, no clock. */
package io.tandem.saga.internal;

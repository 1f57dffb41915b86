/** The CDC relay's internals: its SQL, setup checks, offset store, rounds and monitor. Not API. */
package io.tandem.cdc.internal;

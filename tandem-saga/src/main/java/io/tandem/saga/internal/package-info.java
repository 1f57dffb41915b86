/** The saga engine's internals: its SQL calls, header names and the JSON of saga data. */
package io.tandem.saga.internal;

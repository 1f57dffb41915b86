/**
 * The CDC relay: {@link io.tandem.cdc.CdcRelay} publishes the outbox's inserts as PostgreSQL's WAL
 * reports them (Debezium's embedded engine, pgoutput), through the same transports and with the
 * same messages as the polling relay; {@link io.tandem.cdc.CdcOperations} reads its slot, position
 * and lag for operators and creates its publication.
 */
package io.tandem.cdc;

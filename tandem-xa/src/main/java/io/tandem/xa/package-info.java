/**
 * Two-phase commit across XA resources (PostgreSQL prepared transactions, MariaDB/MySQL XA): {@link
 * io.tandem.xa.XaCoordinator} runs transactions with one branch per database, writes its commit
 * decision to a table before phase 2 and recovers in-doubt branches; {@link
 * io.tandem.xa.XaOperations} is the operator's view (status, resolve) without a running
 * coordinator; {@link io.tandem.xa.XaMetrics} publishes the age of the oldest in-doubt branch.
 */
package io.tandem.xa;

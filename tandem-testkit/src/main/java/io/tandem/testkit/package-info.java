/**
 * Real infrastructure for Tandem's tests and demos, started from Maven artifacts (no Docker, no
 * installed servers) or, for MariaDB, found on the machine.
 *
 * <ul>
 *   <li>{@link io.tandem.testkit.PostgresServer}: an embedded PostgreSQL (binaries from {@code
 *       io.zonky.test.postgres}) or an external one; {@link io.tandem.testkit.MariaDbServer}: an
 *       external MariaDB; both {@link io.tandem.testkit.DatabaseServer}s that hand out {@link
 *       io.tandem.testkit.IsolatedDatabase}s, a throw-away database per test class.
 *   <li>{@link io.tandem.testkit.KafkaBroker}: a single-node KRaft Kafka broker running in this
 *       JVM, that can be stopped and restarted on the same ports for outage drills.
 *   <li>{@link io.tandem.testkit.TestInfrastructure}: one shared server and broker per JVM, or
 *       external ones named by {@code TANDEM_JDBC_URL} and {@code TANDEM_KAFKA_BOOTSTRAP}; the
 *       machine's MariaDB or the one named by {@code TANDEM_MARIADB_URL}, tests skipped when none
 *       answers ({@link io.tandem.testkit.RequiresMariaDb}).
 * </ul>
 */
package io.tandem.testkit;

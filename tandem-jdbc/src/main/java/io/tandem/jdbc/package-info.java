/**
 * Tandem's database layer: {@link io.tandem.jdbc.Dialect dialects} that hold every SQL statement,
 * {@link io.tandem.jdbc.Migrations schema migrations} shipped in the jar as Flyway files, and
 * {@link io.tandem.jdbc.Transactions transaction helpers}.
 */
package io.tandem.jdbc;

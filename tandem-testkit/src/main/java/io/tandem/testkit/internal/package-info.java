/**
 * Internals of the test kit: the in-process KRaft node, free-port and temporary-directory handling,
 * database-name validation and the JVM-exit cleanup. No compatibility promise.
 */
package io.tandem.testkit.internal;

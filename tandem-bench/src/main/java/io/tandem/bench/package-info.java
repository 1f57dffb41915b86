/**
 * Benchmarks. Every figure is measured side by side with its reference in the same run (the raw-SQL
 * ceiling, the writers without the relay), so that ratios hold on shared, noisy machines.
 */
package io.tandem.bench;

/** Orchestrator processes killed and started again: durable timers. */
package io.tandem.saga.restart;

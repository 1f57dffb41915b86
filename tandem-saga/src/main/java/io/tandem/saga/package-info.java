/**
 * Sagas: {@link io.tandem.saga.SagaDefinition} (a plain Java DSL), the durable {@link
 * io.tandem.saga.SagaOrchestrator}, the {@link io.tandem.saga.SagaParticipant} helper for the
 * services it commands, and {@link io.tandem.saga.SagaTrail} for following a choreography.
 */
package io.tandem.saga;

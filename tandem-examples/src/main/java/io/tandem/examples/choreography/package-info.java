/**
 * The checkout as a choreography: order, payment, inventory and shipping services, each with its
 * own database, reacting to each other's events through their outbox and inbox over Kafka, with no
 * coordinator; compensation (a refund, a cancellation) is one more reaction. {@link
 * io.tandem.examples.choreography.ChoreographedCheckout} starts it, places orders with a chosen
 * failure mix, checks the invariants and follows one checkout across the services with {@link
 * io.tandem.saga.SagaTrail}.
 */
package io.tandem.examples.choreography;

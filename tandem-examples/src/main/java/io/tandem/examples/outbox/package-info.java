/**
 * The outbox reference flow: an order service confirms orders (business row and outbox row in one
 * transaction), relays publish to Kafka, and a billing service applies each event through its
 * inbox. {@link io.tandem.examples.outbox.OutboxDemo} runs it end to end and checks the result.
 */
package io.tandem.examples.outbox;

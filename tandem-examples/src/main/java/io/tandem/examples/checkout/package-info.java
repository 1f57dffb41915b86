/**
 * The checkout reference system: an order, a payment, an inventory and a shipping service, each
 * with its own database, and an orchestrator running the checkout saga over Kafka ({@link
 * io.tandem.examples.checkout.CheckoutSaga}). {@link io.tandem.examples.checkout.CheckoutSystem}
 * starts it; {@link io.tandem.examples.checkout.CheckoutDemo} runs many checkouts with a failure
 * mix and checks {@link io.tandem.examples.checkout.CheckoutInvariants} from the databases; {@link
 * io.tandem.examples.checkout.OrchestratorMain} runs an orchestrator instance as its own process.
 */
package io.tandem.examples.checkout;

package io.tandem.examples.checkout;

import io.tandem.core.RetryPolicy;
import io.tandem.saga.SagaDefinition;
import java.time.Duration;

/**
 * The checkout saga, orchestrated:
 *
 * <ol>
 *   <li>{@code create-order} (compensatable): the order service creates the order as {@code
 *       PENDING} — a semantic lock other operations respect — or refuses; undone by {@code
 *       CancelOrder};
 *   <li>{@code authorize-payment} (compensatable): the payment service charges the card, or
 *       declines; undone by {@code RefundPayment}. Placed right before the pivot, so that a refund
 *       is needed only when the pivot itself fails;
 *   <li>{@code reserve-inventory} (pivot): the inventory service takes the stock, or fails when
 *       there is not enough — then the refund and the cancellation run, in that order;
 *   <li>{@code request-shipping} (retriable): the shipping service books the carrier, the
 *       irreversible step, placed after the pivot and retried until it succeeds;
 *   <li>{@code approve-order} (retriable): the order service marks the order {@code CONFIRMED},
 *       which ends the semantic lock.
 * </ol>
 *
 * <p>Participant names are the aggregate types of the commands, hence their Kafka topics ({@code
 * <prefix>order}, {@code <prefix>payment}, ...); participants reply to {@value #REPLIES}.
 */
public final class CheckoutSaga {
  /** The saga type. */
  public static final String TYPE = "checkout";

  /** The aggregate type (topic) of the replies to the orchestrator. */
  public static final String REPLIES = "checkout-replies";

  public static final String ORDER = "order";
  public static final String PAYMENT = "payment";
  public static final String INVENTORY = "inventory";
  public static final String SHIPPING = "shipping";

  public static final String CREATE_ORDER = "create-order";
  public static final String AUTHORIZE_PAYMENT = "authorize-payment";
  public static final String RESERVE_INVENTORY = "reserve-inventory";
  public static final String REQUEST_SHIPPING = "request-shipping";
  public static final String APPROVE_ORDER = "approve-order";

  /** Retries of the retriable steps and compensations: 100 ms base, 2 s cap, full jitter. */
  public static final RetryPolicy RETRY_POLICY =
      RetryPolicy.builder()
          .base(Duration.ofMillis(100))
          .cap(Duration.ofSeconds(2))
          .maxAttempts(Integer.MAX_VALUE)
          .build();

  private CheckoutSaga() {}

  /**
   * The definition, with {@code stepTimeout} as the time a step may wait for its reply before the
   * command is sent again.
   */
  public static SagaDefinition<Checkout> definition(Duration stepTimeout) {
    return SagaDefinition.builder(TYPE, Checkout.class)
        .compensatable(CREATE_ORDER, ORDER, "CreatePendingOrder", "CancelOrder")
        .compensatable(AUTHORIZE_PAYMENT, PAYMENT, "AuthorizePayment", "RefundPayment")
        .pivot(RESERVE_INVENTORY, INVENTORY, "ReserveInventory")
        .retriable(REQUEST_SHIPPING, SHIPPING, "RequestShipping")
        .retriable(APPROVE_ORDER, ORDER, "ApproveOrder")
        .stepTimeout(stepTimeout)
        .retryPolicy(RETRY_POLICY)
        .compensationAttempts(20)
        .build();
  }
}

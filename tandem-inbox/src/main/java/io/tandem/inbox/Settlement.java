package io.tandem.inbox;

import io.tandem.core.FaultInjector;
import io.tandem.core.spi.InboundMessage;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The owner's last step: settles each message at the broker once the processor returned its outcome
 * — every outcome but {@link Outcome#ABANDONED}, which committed nothing and is left for
 * redelivery. An acknowledgement that fails is tried again with the retry policy's backoff, then
 * left to the broker's redelivery (the inbox recognises the message: its effect committed).
 * Thread-safe.
 */
final class Settlement {
  private static final Logger LOG = LoggerFactory.getLogger(Settlement.class);

  private final String consumer;
  private final Attempts attempts;
  private final Runnable onFailure;

  Settlement(String consumer, Attempts attempts, Runnable onFailure) {
    this.consumer = consumer;
    this.attempts = attempts;
    this.onFailure = onFailure;
  }

  void settle(
      List<? extends InboundMessage> messages, List<Outcome> outcomes, BooleanSupplier stop) {
    for (int i = 0; i < messages.size(); i++) {
      if (outcomes.get(i) != Outcome.ABANDONED) {
        acknowledge(messages.get(i), stop);
      }
    }
  }

  /** True when the broker took the acknowledgement. */
  boolean acknowledge(InboundMessage m, BooleanSupplier stopping) {
    for (int failures = 1; ; failures++) {
      try {
        m.acknowledge();
        return true;
      } catch (FaultInjector.SimulatedCrash crash) {
        throw crash;
      } catch (RuntimeException | Error e) {
        onFailure.run();
        if (!attempts.mayRetry(failures)) {
          LOG.error(
              "consumer {}: acknowledging {} failed {} times; the broker will deliver it again and"
                  + " the inbox will recognise it",
              consumer,
              m.origin(),
              failures,
              e);
          return false;
        }
        LOG.warn("consumer {}: acknowledging {} failed; again", consumer, m.origin(), e);
        if (!attempts.backoff(failures, stopping)) {
          return false;
        }
      }
    }
  }
}

package io.tandem.inbox;

import io.micrometer.core.instrument.Counter;
import io.tandem.core.FaultInjector;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a lane does with a batch, as the messages' one owner: hands it to the processor, which
 * returns each message's outcome, then settles each at the broker ({@link Settlement}) and tells
 * {@code afterApplied}. A failure that escapes the processor (a bug, a failing fault point) settles
 * nothing: the batch is applied again with the retry policy's backoff (what committed is a
 * duplicate by then), and after the last attempt left unacknowledged for redelivery — never
 * dead-lettered for a failure that is not its handler's, never acknowledged without its commit.
 */
final class LaneWork {
  private static final Logger LOG = LoggerFactory.getLogger(LaneWork.class);

  private final InboxProcessor processor;
  private final Settlement settlement;
  private final Counter failures;
  private final Runnable afterApplied;
  private final BooleanSupplier stopping;

  LaneWork(
      InboxProcessor processor, Counter failures, Runnable afterApplied, BooleanSupplier stopping) {
    this.processor = processor;
    this.failures = failures;
    this.afterApplied = afterApplied;
    this.stopping = stopping;
    this.settlement =
        new Settlement(processor.consumer(), processor.attempts(), failures::increment);
  }

  void process(List<Decoded> batch) {
    for (int failed = 1; !stopping.getAsBoolean(); failed++) {
      List<Outcome> outcomes;
      try {
        outcomes = processor.apply(batch, stopping);
      } catch (FaultInjector.SimulatedCrash crash) {
        throw crash;
      } catch (RuntimeException | Error e) {
        failures.increment();
        if (!processor.attempts().mayRetry(failed)) {
          LOG.error(
              "consumer {}: a batch of {} failed outside its handlers {} times; it is left"
                  + " unacknowledged for redelivery",
              processor.consumer(),
              batch.size(),
              failed,
              e);
          return;
        }
        LOG.error(
            "consumer {}: a batch of {} failed outside its handlers (attempt {}); again",
            processor.consumer(),
            batch.size(),
            failed,
            e);
        if (!processor.attempts().backoff(failed, stopping)) {
          return;
        }
        continue;
      }
      settlement.settle(batch.stream().map(Decoded::message).toList(), outcomes, stopping);
      outcomes.stream().filter(o -> o == Outcome.APPLIED).forEach(o -> notifyApplied());
      return;
    }
  }

  private void notifyApplied() {
    try {
      afterApplied.run();
    } catch (RuntimeException e) {
      LOG.warn("consumer {}: the afterApplied callback failed", processor.consumer(), e);
    }
  }
}

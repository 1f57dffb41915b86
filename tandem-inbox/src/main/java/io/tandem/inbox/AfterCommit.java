package io.tandem.inbox;

import io.tandem.core.Event;
import io.tandem.core.FaultInjector;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What happens right after the transaction that dealt with a message committed, before its outcome
 * goes back to the owner of the message: the drill's fault point {@link
 * FaultInjector#CONSUMER_AFTER_COMMIT}, then the application's {@code afterCommit} hook. A failing
 * hook is logged and changes nothing (the commit stands); a drill's {@link
 * FaultInjector.SimulatedCrash} from it passes, as the process's end.
 */
final class AfterCommit {
  private static final Logger LOG = LoggerFactory.getLogger(AfterCommit.class);

  private final String consumer;
  private final FaultInjector faultInjector;
  private final BiConsumer<Event, Outcome> hook;

  AfterCommit(String consumer, FaultInjector faultInjector, BiConsumer<Event, Outcome> hook) {
    this.consumer = consumer;
    this.faultInjector = faultInjector;
    this.hook = hook;
  }

  /** {@code event} is null for a message that could not be decoded (dead-lettered as such). */
  void committed(Event event, Outcome outcome) {
    faultInjector.reached(FaultInjector.CONSUMER_AFTER_COMMIT);
    if (event == null) {
      return;
    }
    try {
      hook.accept(event, outcome);
    } catch (FaultInjector.SimulatedCrash crash) {
      throw crash; // a drill's "kill" from the hook (the saga orchestrator's step fault point)
    } catch (RuntimeException | Error e) {
      LOG.warn("consumer {}: the afterCommit hook failed on {}", consumer, event.eventId(), e);
    }
  }
}

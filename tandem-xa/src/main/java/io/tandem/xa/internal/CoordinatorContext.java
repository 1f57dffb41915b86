package io.tandem.xa.internal;

import io.tandem.core.FaultInjector;
import io.tandem.xa.GlobalTransactionId;
import io.tandem.xa.XaSettings;
import java.time.Clock;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;

/**
 * What every transaction of one coordinator shares.
 *
 * @param participants by name, in the order they were configured
 * @param executor runs the branches' phase operations beside the committing thread
 * @param inFlight the transactions this process is running now (recovery leaves them alone)
 */
public record CoordinatorContext(
    XaSettings settings,
    Map<String, Participant> participants,
    DecisionLog decisionLog,
    Executor executor,
    FaultInjector faults,
    Clock clock,
    Set<GlobalTransactionId> inFlight,
    XaCounters counters) {}

package io.tandem.inbox.contract;

import io.tandem.core.FaultInjector;
import io.tandem.inbox.ConsumerRunner;
import io.tandem.inbox.InboxProcessor;
import io.tandem.testkit.JvmProcess;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A consumer process for the contract's SIGKILL test. Arguments: source factory class, group,
 * aggregate type, JDBC URL, consumer name, n. It applies events like the contract's in-process
 * consumers; at the fault point {@code consumer.after-commit} of its n-th transaction it prints
 * {@value #STALLED} and stops there — committed, not acknowledged — until the test kills it.
 */
public final class ConsumerChild {
  static final String STALLED = "STALLED-AFTER-COMMIT";

  /** Prefix of the environment variables holding {@code key=value} system properties to set. */
  static final String PROPERTY_VARIABLE = "TANDEM_CHILD_PROPERTY_";

  private ConsumerChild() {}

  public static void main(String[] args) throws Exception {
    System.getenv().entrySet().stream()
        .filter(e -> e.getKey().startsWith(PROPERTY_VARIABLE))
        .map(e -> e.getValue().split("=", 2))
        .forEach(kv -> System.setProperty(kv[0], kv[1]));
    SourceFactory factory =
        (SourceFactory) Class.forName(args[0]).getDeclaredConstructor().newInstance();
    String group = args[1];
    String aggregateType = args[2];
    UrlDataSource dataSource = new UrlDataSource(JvmProcess.argument(args[3]));
    String consumer = args[4];
    int stallAt = Integer.parseInt(args[5]);
    AtomicInteger commits = new AtomicInteger();
    FaultInjector stall =
        point -> {
          if (point.equals(FaultInjector.CONSUMER_AFTER_COMMIT)
              && commits.incrementAndGet() == stallAt) {
            System.out.println(STALLED);
            System.out.flush();
            while (true) {
              try {
                Thread.sleep(60_000);
              } catch (InterruptedException e) {
                // a killed process does not get to finish either
              }
            }
          }
        };
    InboxProcessor processor =
        InboxProcessor.builder()
            .dataSource(dataSource)
            .consumer(consumer)
            .onAnyEventType(1, (c, e) -> ContractEffects.apply(c, consumer, e))
            .faultInjector(stall)
            .build();
    ConsumerRunner runner =
        ConsumerRunner.builder()
            .source(factory.create(group, aggregateType))
            .processor(processor)
            .concurrency(1)
            .build();
    runner.start();
    System.out.println("RUNNING");
    System.out.flush();
    Thread.currentThread().join();
  }
}

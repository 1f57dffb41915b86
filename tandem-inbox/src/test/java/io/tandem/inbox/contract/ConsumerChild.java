package io.tandem.inbox.contract;

import io.tandem.core.FaultInjector;
import io.tandem.inbox.ConsumerRunner;
import io.tandem.inbox.InboxProcessor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A consumer process for the contract's SIGKILL test. Arguments: source factory class, group,
 * aggregate type, JDBC URL, consumer name, n. It applies events like the contract's in-process
 * consumers; at the fault point {@code consumer.after-commit} of its n-th transaction it prints
 * {@value #STALLED} and stops there — committed, not acknowledged — until the test kills it.
 */
public final class ConsumerChild {
  static final String STALLED = "STALLED-AFTER-COMMIT";

  private ConsumerChild() {}

  public static void main(String[] args) throws Exception {
    SourceFactory factory =
        (SourceFactory) Class.forName(args[0]).getDeclaredConstructor().newInstance();
    String group = args[1];
    String aggregateType = args[2];
    UrlDataSource dataSource = new UrlDataSource(args[3]);
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

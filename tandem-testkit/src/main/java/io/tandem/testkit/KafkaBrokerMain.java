package io.tandem.testkit;

/**
 * Runs one embedded Kafka broker until the process is terminated; prints its bootstrap address on
 * standard output. Used by {@link KafkaBrokerProcess}.
 */
public final class KafkaBrokerMain {
  private KafkaBrokerMain() {}

  public static void main(String[] args) throws InterruptedException {
    KafkaBroker broker = KafkaBroker.embedded().start();
    Runtime.getRuntime().addShutdownHook(new Thread(broker::close, "tandem-kafka-main-stop"));
    System.out.println(KafkaBrokerProcess.READY + broker.bootstrapServers());
    System.out.flush();
    Thread.currentThread().join();
  }
}

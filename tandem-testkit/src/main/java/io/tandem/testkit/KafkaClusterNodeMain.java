package io.tandem.testkit;

import io.tandem.testkit.internal.KraftNode;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * Runs one node of a {@link KafkaCluster} until the process is killed: reads the node's settings
 * from {@code DIR/member.properties}, formats its log directory on first start, starts it and
 * prints {@value #READY}. Used by {@link KafkaCluster}; started again on the same directory, it
 * finds its data.
 */
public final class KafkaClusterNodeMain {
  static final String READY = "TANDEM-KAFKA-NODE-READY";
  static final String SETTINGS = "member.properties";
  static final String CLUSTER_ID = "tandem.cluster.id";
  static final String BOOTSTRAP = "tandem.bootstrap";

  private KafkaClusterNodeMain() {}

  public static void main(String[] args) throws IOException, InterruptedException {
    Path directory = Path.of(args[0]);
    Properties properties = new Properties();
    try (Reader reader =
        Files.newBufferedReader(directory.resolve(SETTINGS), StandardCharsets.UTF_8)) {
      properties.load(reader);
    }
    Map<String, String> config = new LinkedHashMap<>();
    properties.stringPropertyNames().forEach(k -> config.put(k, properties.getProperty(k)));
    String clusterId = config.remove(CLUSTER_ID);
    String bootstrap = config.remove(BOOTSTRAP);
    KraftNode node =
        KraftNode.member(directory, config, bootstrap, clusterId, Duration.ofSeconds(90));
    node.start();
    Runtime.getRuntime().addShutdownHook(new Thread(node::stop, "tandem-kafka-node-stop"));
    System.out.println(READY + " " + bootstrap);
    System.out.flush();
    Thread.currentThread().join();
  }
}

package io.tandem.sample;

import io.tandem.core.Event;
import io.tandem.inbox.ConsumerRunner;
import io.tandem.inbox.InboxProcessor;
import io.tandem.kafka.KafkaMessageSource;
import io.tandem.spring.ConsumerRunnerLifecycle;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The shipping service's consumer (in the same process for the sample's sake): each OrderPlaced
 * creates one shipment, through the inbox, so a redelivered event ships nothing twice.
 */
@Configuration(proxyBeanMethods = false)
public class ShippingConsumer {

  @Bean
  ConsumerRunnerLifecycle shippingConsumerRunner(
      DataSource dataSource,
      @Value("${tandem.kafka.bootstrap-servers}") String bootstrapServers,
      @Value("${tandem.kafka.topic-prefix:tandem.}") String topicPrefix) {
    return new ConsumerRunnerLifecycle(
        () ->
            ConsumerRunner.builder()
                .source(
                    KafkaMessageSource.builder()
                        .bootstrapServers(bootstrapServers)
                        .groupId("shipping")
                        .topics(List.of(topicPrefix + "order"))
                        .build())
                .processor(
                    InboxProcessor.builder()
                        .dataSource(dataSource)
                        .consumer("shipping")
                        .on("OrderPlaced", ShippingConsumer::ship)
                        .build())
                .build());
  }

  static void ship(Connection connection, Event event) throws SQLException {
    try (PreparedStatement ps =
        connection.prepareStatement(
            "INSERT INTO shipments (shipment_id, order_id) VALUES (?, ?)")) {
      ps.setString(1, UUID.randomUUID().toString());
      ps.setString(2, event.aggregateId());
      ps.executeUpdate();
    }
  }
}

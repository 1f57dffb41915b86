package io.tandem.spring;

import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when a broker is configured: {@code tandem.transport} is set, or {@code
 * tandem.kafka.bootstrap-servers} is (Kafka by default).
 */
public final class BrokerConfigured implements Condition {
  @Override
  public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
    var env = context.getEnvironment();
    return hasText(env.getProperty("tandem.transport"))
        || hasText(env.getProperty("tandem.kafka.bootstrap-servers"));
  }

  private static boolean hasText(String s) {
    return s != null && !s.isBlank();
  }
}

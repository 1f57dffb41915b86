package io.tandem.spring.boot;

import io.tandem.spring.BacklogHealth;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/** Health component {@code tandem}: Boot 4's mapping of {@link BacklogHealth}. */
public class TandemHealthIndicator extends AbstractHealthIndicator {
  private final BacklogHealth health;

  public TandemHealthIndicator(BacklogHealth health) {
    super("Tandem's outbox health check failed");
    this.health = health;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    BacklogHealth.Result r = health.check();
    (r.up() ? builder.up() : builder.down()).withDetails(r.details());
  }
}

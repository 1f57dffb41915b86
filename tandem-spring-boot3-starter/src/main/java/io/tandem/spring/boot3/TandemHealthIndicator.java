package io.tandem.spring.boot3;

import io.tandem.spring.BacklogHealth;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/** Health component {@code tandem}: Boot 3's mapping of {@link BacklogHealth}. */
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

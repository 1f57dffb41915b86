package io.tandem.spring.boot3;

import io.tandem.spring.BacklogHealth;
import io.tandem.spring.TandemHealth;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/** Health component {@code tandem}: Boot 3's mapping of {@link TandemHealth}. */
public class TandemHealthIndicator extends AbstractHealthIndicator {
  private final TandemHealth health;

  public TandemHealthIndicator(TandemHealth health) {
    super("Tandem's health check failed");
    this.health = health;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    BacklogHealth.Result r = health.check();
    (r.up() ? builder.up() : builder.down()).withDetails(r.details());
  }
}

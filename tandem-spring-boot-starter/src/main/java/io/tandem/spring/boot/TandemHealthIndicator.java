package io.tandem.spring.boot;

import io.tandem.spring.BacklogHealth;
import io.tandem.spring.StuckWorkHealth;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health component {@code tandem}: Boot 4's mapping of {@link BacklogHealth} and {@link
 * StuckWorkHealth}.
 */
public class TandemHealthIndicator extends AbstractHealthIndicator {
  private final BacklogHealth health;
  private final StuckWorkHealth stuckWork;

  public TandemHealthIndicator(BacklogHealth health, StuckWorkHealth stuckWork) {
    super("Tandem's health check failed");
    this.health = health;
    this.stuckWork = stuckWork;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    BacklogHealth.Result r = health.check().and(stuckWork.check());
    (r.up() ? builder.up() : builder.down()).withDetails(r.details());
  }
}

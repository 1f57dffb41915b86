package io.tandem.saga.internal;

import io.tandem.saga.SagaDefinition;
import java.util.Map;

/** The saga types one orchestrator runs, by name. Immutable. */
public final class Definitions {
  private final String orchestrator;
  private final Map<String, SagaDefinition<?>> byType;

  public Definitions(String orchestrator, Map<String, SagaDefinition<?>> byType) {
    this.orchestrator = orchestrator;
    this.byType = Map.copyOf(byType);
  }

  public Map<String, SagaDefinition<?>> asMap() {
    return byType;
  }

  /**
   * The definition of {@code type}.
   *
   * @throws IllegalArgumentException naming the types it knows when there is none
   */
  public SagaDefinition<?> of(String type) {
    SagaDefinition<?> def = byType.get(type);
    if (def == null) {
      throw new IllegalArgumentException(
          "orchestrator "
              + orchestrator
              + " has no saga definition '"
              + type
              + "'; it knows "
              + byType.keySet());
    }
    return def;
  }
}

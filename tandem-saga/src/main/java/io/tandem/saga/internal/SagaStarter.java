package io.tandem.saga.internal;

import io.tandem.core.EventLimits;
import io.tandem.core.json.Json;
import io.tandem.saga.SagaDefinition;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.UUID;

/** Starts instances: checks the saga data and writes the first transition. Thread-safe. */
public final class SagaStarter {
  /** Room left in a command for what replies merge into the data. */
  private static final int REPLY_ROOM_BYTES = 4096;

  private final Definitions definitions;
  private final TransitionWriter writer;
  private final EventLimits limits;
  private final Clock clock;

  public SagaStarter(
      Definitions definitions, TransitionWriter writer, EventLimits limits, Clock clock) {
    this.definitions = definitions;
    this.writer = writer;
    this.limits = limits;
    this.clock = clock;
  }

  public void start(Connection conn, UUID id, String sagaType, Object data) throws SQLException {
    SagaDefinition<?> def = definitions.of(sagaType);
    writer.apply(
        conn, def, SagaMachine.start(def, id, json(def, data), clock.instant()), clock.instant());
  }

  private String json(SagaDefinition<?> def, Object data) {
    if (data == null || !def.dataType().isInstance(data)) {
      throw new IllegalArgumentException(
          "saga '"
              + def.type()
              + "' needs data of type "
              + def.dataType().getName()
              + ", got "
              + data);
    }
    String json = Json.write(data);
    if (!Json.mapper().valueToTree(data).isObject()) {
      throw new IllegalArgumentException("saga data must serialise to a JSON object, got " + json);
    }
    int bytes = json.getBytes(StandardCharsets.UTF_8).length;
    int most = limits.maxPayloadBytes() - REPLY_ROOM_BYTES;
    if (bytes > most) {
      throw new IllegalArgumentException(
          "saga data of '"
              + def.type()
              + "' is "
              + bytes
              + " bytes: every command carries it, and a command may carry at most "
              + most
              + " bytes (EventLimits.maxPayloadBytes minus room for replies); keep large"
              + " documents elsewhere and put their reference in the saga data");
    }
    return json;
  }
}

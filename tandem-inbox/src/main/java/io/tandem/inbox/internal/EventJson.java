package io.tandem.inbox.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tandem.core.Event;
import io.tandem.core.EventHeaders;
import io.tandem.core.TandemException;
import io.tandem.core.json.Json;
import java.time.Instant;
import java.util.UUID;

/**
 * Tandem's own JSON rendering of a whole event, kept with a dead letter so that it can be replayed
 * without the broker's message. The payload is embedded as text, byte for byte.
 */
public final class EventJson {
  private EventJson() {}

  public static String write(Event e) {
    ObjectNode node = Json.mapper().createObjectNode();
    node.put("event_id", e.eventId().toString());
    node.put("aggregate_type", e.aggregateType());
    node.put("aggregate_id", e.aggregateId());
    node.put("aggregate_version", e.aggregateVersion());
    node.put("event_type", e.eventType());
    node.put("schema_version", e.schemaVersion());
    node.put("payload", e.payload());
    node.put("headers", e.headers().toJson());
    node.put("occurred_at", e.occurredAt().toString());
    return Json.write(node);
  }

  public static Event read(String json) {
    try {
      JsonNode n = Json.parse(json);
      return Event.builder()
          .eventId(UUID.fromString(n.get("event_id").asText()))
          .aggregate(
              n.get("aggregate_type").asText(),
              n.get("aggregate_id").asText(),
              n.get("aggregate_version").asLong())
          .eventType(n.get("event_type").asText())
          .schemaVersion(n.get("schema_version").asInt())
          .payload(n.get("payload").asText())
          .headers(EventHeaders.fromJson(n.get("headers").asText()))
          .occurredAt(Instant.parse(n.get("occurred_at").asText()))
          .build();
    } catch (Exception e) {
      throw new TandemException("a stored event envelope cannot be read back: " + e, e);
    }
  }
}

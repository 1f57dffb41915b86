package io.tandem.cli;

import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/** Turns the library's API values into what the dashboard's JSON shows. Stateless. */
final class JsonView {
  private JsonView() {}

  /** A JSON-ready view of API values: records as maps, times and ids as text, no raw bodies. */
  static Object view(Object value) {
    if (value == null
        || value instanceof String
        || value instanceof Number
        || value instanceof Boolean) {
      return value;
    }
    if (value instanceof Optional<?> o) {
      return view(o.orElse(null));
    }
    if (value instanceof OptionalLong o) {
      return o.isPresent() ? o.getAsLong() : null;
    }
    if (value instanceof Duration d) {
      return d.toMillis() / 1000.0;
    }
    if (value instanceof byte[] b) {
      return b.length + " bytes";
    }
    if (value instanceof Collection<?> c) {
      return c.stream().map(JsonView::view).toList();
    }
    if (value instanceof Map<?, ?> m) {
      Map<String, Object> out = new LinkedHashMap<>();
      m.forEach((k, v) -> out.put(String.valueOf(k), view(v)));
      return out;
    }
    if (value instanceof Record r) {
      Map<String, Object> out = new LinkedHashMap<>();
      for (RecordComponent component : r.getClass().getRecordComponents()) {
        try {
          out.put(component.getName(), view(component.getAccessor().invoke(r)));
        } catch (ReflectiveOperationException e) {
          throw new IllegalStateException("cannot read " + component, e);
        }
      }
      return out;
    }
    return value.toString(); // Instant, UUID, enums
  }
}

package io.tandem.inbox.internal;

/** The text of a multi-row statement: placeholders only, never values. Stateless. */
final class PlaceholderRows {
  private PlaceholderRows() {}

  /** {@code head}, then {@code count} copies of {@code group} joined by ", ", then {@code tail}. */
  static String of(String head, int count, String group, String tail) {
    StringBuilder sql = new StringBuilder(head);
    for (int i = 0; i < count; i++) {
      if (i > 0) {
        sql.append(", ");
      }
      sql.append(group);
    }
    return sql.append(tail).toString();
  }
}

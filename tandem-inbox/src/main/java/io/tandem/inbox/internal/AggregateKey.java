package io.tandem.inbox.internal;

/**
 * An aggregate of a batch: its type and id, ordered by type then id (the order positions lock in).
 */
public record AggregateKey(String type, String id) implements Comparable<AggregateKey> {
  @Override
  public int compareTo(AggregateKey o) {
    int byType = type.compareTo(o.type);
    return byType != 0 ? byType : id.compareTo(o.id);
  }
}

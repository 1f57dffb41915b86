package io.tandem.cdc.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Which streamed rows to publish, from what the table says of them: a row already marked published
 * (the drain published it, a restart streams it again) is not published twice; a row the table
 * lacks is published only where the stream carries nothing uncommitted ({@link
 * CdcDialect#streamsOnlyCommitted()}: on PostgreSQL it is a commit not yet visible to the check's
 * snapshot), and dropped where it may come from an XA branch rolled back after its PREPARE
 * (MariaDB). Pure: no database.
 */
public final class StreamedRows {
  private StreamedRows() {}

  /**
   * @param published row id → whether the table marks it published, for the rows the table holds
   * @param lacking told of every row the table lacks that is dropped
   */
  public static List<RoundPublisher.Item> stillToPublish(
      List<RoundPublisher.Item> items,
      Map<Long, Boolean> published,
      boolean streamsOnlyCommitted,
      Consumer<RoundPublisher.Item> lacking) {
    List<RoundPublisher.Item> kept = new ArrayList<>();
    for (RoundPublisher.Item item : items) {
      Boolean alreadyPublished = published.get(item.rowId());
      if (alreadyPublished == null) {
        if (streamsOnlyCommitted) {
          kept.add(item);
        } else {
          lacking.accept(item);
        }
      } else if (!alreadyPublished) {
        kept.add(item);
      }
    }
    return kept;
  }
}

package io.tandem.inbox;

import io.tandem.core.Tracing;
import io.tandem.jdbc.Dialect;
import javax.sql.DataSource;

/** What the parts of one consumer's processing share: its settings and its collaborators. */
record ConsumerParts(
    String consumer,
    DataSource dataSource,
    Dialect dialect,
    boolean ordered,
    boolean startAtFirstSeen,
    Handlers handlers,
    Attempts attempts,
    AfterCommit afterCommit,
    ConsumerMetrics metrics,
    Tracing tracing) {}

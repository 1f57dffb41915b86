package io.tandem.cdc.internal;

import io.tandem.core.FaultInjector;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;

/**
 * What a {@link JdbcOffsetBackingStore} needs and Kafka Connect cannot hand it (Connect builds the
 * store by class name with no arguments): the database, the store's name (the slot), the fault
 * injector and a callback after each flush. The relay registers one per engine and passes its id in
 * the engine's configuration ({@link JdbcOffsetBackingStore#CONTEXT}).
 */
public record OffsetStoreContext(
    DataSource dataSource,
    CdcDialect dialect,
    String storeName,
    FaultInjector faults,
    Runnable afterFlush) {
  private static final Map<String, OffsetStoreContext> REGISTERED = new ConcurrentHashMap<>();

  public OffsetStoreContext {
    Objects.requireNonNull(dataSource, "dataSource");
    Objects.requireNonNull(dialect, "dialect");
    Objects.requireNonNull(storeName, "storeName");
    Objects.requireNonNull(faults, "faults");
    Objects.requireNonNull(afterFlush, "afterFlush");
  }

  /** Registers this context; returns the id to pass in the engine's configuration. */
  public String register() {
    String id = storeName + "/" + UUID.randomUUID();
    REGISTERED.put(id, this);
    return id;
  }

  public static void unregister(String id) {
    REGISTERED.remove(id);
  }

  static OffsetStoreContext lookUp(String id) {
    OffsetStoreContext context = id == null ? null : REGISTERED.get(id);
    if (context == null) {
      throw new IllegalStateException(
          "no Tandem offset store is registered under '"
              + id
              + "': JdbcOffsetBackingStore is used only through CdcRelay, which registers it");
    }
    return context;
  }
}

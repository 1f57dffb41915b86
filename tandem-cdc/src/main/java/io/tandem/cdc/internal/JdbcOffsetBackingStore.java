package io.tandem.cdc.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tandem.core.FaultInjector;
import io.tandem.jdbc.JdbcException;
import io.tandem.jdbc.Transactions;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.connect.runtime.WorkerConfig;
import org.apache.kafka.connect.storage.OffsetBackingStore;
import org.apache.kafka.connect.util.Callback;

/**
 * Debezium's source offsets in {@code tandem_cdc_offset}, one row per key, written in one
 * transaction per flush. The engine flushes only positions whose records the relay marked
 * processed, and the relay marks a record processed only after the broker acknowledged it (or the
 * database holds it for a retry), so a stored position never passes an unacknowledged event.
 *
 * <p>Keys and values are the JSON text Kafka Connect's converter wrote. Fault point {@link
 * FaultInjector#CDC_BEFORE_OFFSET_FLUSH} runs before each write.
 */
public final class JdbcOffsetBackingStore implements OffsetBackingStore {
  /** The engine setting naming the registered {@link OffsetStoreContext}. */
  public static final String CONTEXT = "tandem.cdc.offsets.context";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Map<ByteBuffer, ByteBuffer> data = new HashMap<>();
  private OffsetStoreContext context;
  private ExecutorService executor;

  public JdbcOffsetBackingStore() {}

  @Override
  public void configure(WorkerConfig config) {
    context = OffsetStoreContext.lookUp(config.originalsStrings().get(CONTEXT));
  }

  @Override
  public synchronized void start() {
    executor =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "tandem-cdc-offsets-" + context.storeName());
              t.setDaemon(true);
              return t;
            });
    try (Connection c = context.dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement(context.dialect().offsets())) {
      ps.setString(1, context.storeName());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String value = rs.getString(2);
          data.put(bytes(rs.getString(1)), value == null ? null : bytes(value));
        }
      }
    } catch (SQLException e) {
      throw new JdbcException(
          "reading the CDC relay's stored position (tandem_cdc_offset, store '"
              + context.storeName()
              + "') failed",
          e);
    }
  }

  @Override
  public synchronized void stop() {
    if (executor != null) {
      executor.shutdown();
      try {
        executor.awaitTermination(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public Future<Map<ByteBuffer, ByteBuffer>> get(Collection<ByteBuffer> keys) {
    return executor.submit(
        () -> {
          Map<ByteBuffer, ByteBuffer> found = new HashMap<>();
          synchronized (data) {
            for (ByteBuffer key : keys) {
              found.put(key, data.get(key));
            }
          }
          return found;
        });
  }

  @Override
  public Future<Void> set(Map<ByteBuffer, ByteBuffer> values, Callback<Void> callback) {
    return executor.submit(
        () -> {
          try {
            context.faults().reached(FaultInjector.CDC_BEFORE_OFFSET_FLUSH);
            save(values);
            synchronized (data) {
              data.putAll(values);
            }
            context.afterFlush().run();
          } catch (RuntimeException | Error e) {
            if (callback != null) {
              callback.onCompletion(e, null);
            }
            throw e;
          }
          if (callback != null) {
            callback.onCompletion(null, null);
          }
          return null;
        });
  }

  private void save(Map<ByteBuffer, ByteBuffer> values) {
    try {
      Transactions.inTransaction(
          context.dataSource(),
          c -> {
            try (PreparedStatement ps = c.prepareStatement(context.dialect().saveOffset())) {
              for (Map.Entry<ByteBuffer, ByteBuffer> e : values.entrySet()) {
                ps.setString(1, context.storeName());
                ps.setString(2, text(e.getKey()));
                ps.setString(3, e.getValue() == null ? null : text(e.getValue()));
                ps.addBatch();
              }
              ps.executeBatch();
            }
            return null;
          });
    } catch (SQLException e) {
      throw new JdbcException(
          "storing the CDC relay's position (tandem_cdc_offset, store '"
              + context.storeName()
              + "') failed; the engine keeps the previous one and flushes again",
          e);
    }
  }

  /** Partitions of {@code connectorName}: keys are Connect's JSON {@code [name, partition]}. */
  @Override
  public Set<Map<String, Object>> connectorPartitions(String connectorName) {
    Set<Map<String, Object>> partitions = new HashSet<>();
    synchronized (data) {
      for (ByteBuffer key : data.keySet()) {
        try {
          JsonNode node = JSON.readTree(text(key));
          if (node.isArray()
              && node.size() == 2
              && connectorName.equals(node.get(0).asText())
              && node.get(1).isObject()) {
            @SuppressWarnings("unchecked")
            Map<String, Object> partition = JSON.convertValue(node.get(1), Map.class);
            partitions.add(partition);
          }
        } catch (java.io.IOException e) {
          // not a key of Connect's JSON form: not a partition of any connector
        }
      }
    }
    return partitions;
  }

  private static ByteBuffer bytes(String text) {
    return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
  }

  private static String text(ByteBuffer buffer) {
    ByteBuffer copy = buffer.duplicate();
    byte[] bytes = new byte[copy.remaining()];
    copy.get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }
}

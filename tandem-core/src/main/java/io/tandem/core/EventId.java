package io.tandem.core;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.UUID;

/**
 * Generates and inspects event ids: RFC 9562 version 7 UUIDs (48-bit Unix milliseconds, then random
 * bits). Ids from one generator are strictly increasing, even within one millisecond, so they sort
 * in creation order.
 *
 * <p>An event id is generated once, before the outbox insert, and never regenerated: a retry of the
 * same event carries the same id, which is what makes consumers' deduplication work.
 *
 * <pre>{@code
 * UUID id = EventId.next();
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class EventId {
  private static final EventId DEFAULT = new EventId(Clock.systemUTC());

  private final Clock clock;
  private final SecureRandom random = new SecureRandom();
  private long lastMillis = -1;
  private long sequence; // 12-bit rand_a used as a counter within one millisecond

  /** A generator reading time from {@code clock} (tests inject a fixed clock). */
  public EventId(Clock clock) {
    this.clock = clock;
  }

  /** A new UUIDv7 from the shared generator. */
  public static UUID next() {
    return DEFAULT.generate();
  }

  /** A new UUIDv7, greater than every id this generator returned before. */
  public synchronized UUID generate() {
    long millis = clock.millis();
    if (millis > lastMillis) {
      lastMillis = millis;
      sequence = random.nextInt(1 << 11); // leave headroom for the counter
    } else if (++sequence > 0xFFF) {
      lastMillis++; // counter exhausted within this millisecond: borrow the next one
      sequence = 0;
    }
    long msb = (lastMillis & 0xFFFF_FFFF_FFFFL) << 16 | 0x7000L | sequence;
    long lsb = (random.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
    return new UUID(msb, lsb);
  }

  /** Whether {@code id} is a version 7 UUID. */
  public static boolean isVersion7(UUID id) {
    return id.version() == 7 && id.variant() == 2;
  }

  /** The creation time embedded in a version 7 id. */
  public static Instant timestampOf(UUID id) {
    if (!isVersion7(id)) {
      throw new IllegalArgumentException("not a UUIDv7 event id: " + id);
    }
    return Instant.ofEpochMilli(id.getMostSignificantBits() >>> 16);
  }
}

package io.tandem.core;

/**
 * Size limits checked when an {@link Event} is built. Immutable.
 *
 * <p>Defaults: payload at most {@value #DEFAULT_MAX_PAYLOAD_BYTES} bytes (1 MiB, UTF-8), names and
 * aggregate ids at most {@value #DEFAULT_MAX_NAME_LENGTH} characters, headers at most {@value
 * #DEFAULT_MAX_HEADERS_BYTES} bytes in total.
 *
 * <pre>{@code
 * EventLimits limits = EventLimits.builder().maxPayloadBytes(256 * 1024).build();
 * }</pre>
 */
public final class EventLimits {
  public static final int DEFAULT_MAX_PAYLOAD_BYTES = 1024 * 1024;
  public static final int DEFAULT_MAX_NAME_LENGTH = 255;
  public static final int DEFAULT_MAX_HEADERS_BYTES = 16 * 1024;

  /** The default limits. */
  public static final EventLimits DEFAULTS = builder().build();

  private final int maxPayloadBytes;
  private final int maxNameLength;
  private final int maxHeadersBytes;

  private EventLimits(Builder b) {
    this.maxPayloadBytes = b.maxPayloadBytes;
    this.maxNameLength = b.maxNameLength;
    this.maxHeadersBytes = b.maxHeadersBytes;
  }

  public static Builder builder() {
    return new Builder();
  }

  public int maxPayloadBytes() {
    return maxPayloadBytes;
  }

  public int maxNameLength() {
    return maxNameLength;
  }

  public int maxHeadersBytes() {
    return maxHeadersBytes;
  }

  /** Builds {@link EventLimits}; every value must be positive. */
  public static final class Builder {
    private int maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES;
    private int maxNameLength = DEFAULT_MAX_NAME_LENGTH;
    private int maxHeadersBytes = DEFAULT_MAX_HEADERS_BYTES;

    private Builder() {}

    public Builder maxPayloadBytes(int bytes) {
      this.maxPayloadBytes = positive("maxPayloadBytes", bytes);
      return this;
    }

    public Builder maxNameLength(int chars) {
      this.maxNameLength = positive("maxNameLength", chars);
      return this;
    }

    public Builder maxHeadersBytes(int bytes) {
      this.maxHeadersBytes = positive("maxHeadersBytes", bytes);
      return this;
    }

    public EventLimits build() {
      return new EventLimits(this);
    }

    private static int positive(String name, int value) {
      if (value <= 0) {
        throw new IllegalArgumentException(name + " must be positive, was " + value);
      }
      return value;
    }
  }
}

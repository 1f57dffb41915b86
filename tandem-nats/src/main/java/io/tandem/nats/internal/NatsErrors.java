package io.tandem.nats.internal;

import io.nats.client.AuthenticationException;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamStatusException;
import io.tandem.core.ErrorClass;
import java.io.IOException;
import java.util.Locale;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeoutException;

/** Maps jnats exceptions and JetStream API errors onto Tandem's {@link ErrorClass}es. */
public final class NatsErrors {
  /** JetStream: the stream's (or the account's) maximum message size is exceeded. */
  static final int MESSAGE_EXCEEDS_MAXIMUM = 10054;

  /** JetStream: a header block over the server's 64 KiB limit. */
  static final int HEADER_EXCEEDS_MAXIMUM = 10097;

  private NatsErrors() {}

  /**
   * The class of {@code failure}: the first exception in its cause chain that says something
   * decides; {@link ErrorClass#UNKNOWN} when none does.
   */
  public static ErrorClass classify(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      ErrorClass c = classifyOne(t);
      if (c != null) {
        return c;
      }
    }
    return ErrorClass.UNKNOWN;
  }

  /**
   * The class of a failure to open a connection: {@link ErrorClass#AUTHORIZATION} when the server
   * refused the credentials, {@link ErrorClass#BROKER_UNAVAILABLE} otherwise.
   */
  public static ErrorClass classifyConnect(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof AuthenticationException || isAuthorizationText(t.getMessage())) {
        return ErrorClass.AUTHORIZATION;
      }
    }
    return ErrorClass.BROKER_UNAVAILABLE;
  }

  /** The class of a JetStream API error, by its JetStream error code, else its status code. */
  public static ErrorClass classifyApiError(int apiErrorCode, int statusCode) {
    return switch (apiErrorCode) {
      case MESSAGE_EXCEEDS_MAXIMUM, HEADER_EXCEEDS_MAXIMUM -> ErrorClass.RECORD_TOO_LARGE;
      // stream not found, JetStream not enabled (globally / for the account), sealed stream
      case 10059, 10076, 10039, 10109 -> ErrorClass.UNROUTABLE;
      // cluster unavailable, not leader, insufficient (storage / memory) resources, store failed
      // (including "maximum messages / bytes exceeded" of a discard-new stream), account limits,
      // peer remap, stream offline
      case 10008, 10009, 10023, 10047, 10028, 10077, 10002, 10075, 10118 -> ErrorClass.TRANSIENT;
      default -> statusCode == 503 ? ErrorClass.TRANSIENT : ErrorClass.UNKNOWN;
    };
  }

  /** Whether a server error text says the credentials may not do what was asked. */
  public static boolean isAuthorizationText(String text) {
    if (text == null) {
      return false;
    }
    String lower = text.toLowerCase(Locale.ROOT);
    return lower.contains("authorization violation")
        || lower.contains("permissions violation")
        || lower.contains("authentication");
  }

  private static ErrorClass classifyOne(Throwable t) {
    String message = t.getMessage() == null ? "" : t.getMessage();
    String lower = message.toLowerCase(Locale.ROOT);
    if (t instanceof JetStreamApiException api) {
      return classifyApiError(api.getApiErrorCode(), api.getErrorCode());
    }
    if (t instanceof JetStreamStatusException status) {
      return status.getStatus() != null && status.getStatus().getCode() == 503
          ? ErrorClass.UNROUTABLE
          : null;
    }
    if (t instanceof TimeoutException) {
      return ErrorClass.TIMEOUT;
    }
    if (t instanceof AuthenticationException || isAuthorizationText(message)) {
      return ErrorClass.AUTHORIZATION;
    }
    if (t instanceof CancellationException) {
      // jnats cancels the futures of a closing connection
      return ErrorClass.CONNECTION_LOST;
    }
    if (t instanceof IllegalStateException) {
      if (lower.contains("output queue is full")) {
        return ErrorClass.TRANSIENT;
      }
      if (lower.contains("reconnect") || lower.contains("closed") || lower.contains("draining")) {
        return ErrorClass.CONNECTION_LOST;
      }
      return null;
    }
    if (t instanceof IllegalArgumentException) {
      return lower.contains("payload size") ? ErrorClass.RECORD_TOO_LARGE : ErrorClass.UNROUTABLE;
    }
    if (t instanceof IOException) {
      if (lower.contains("no responders")) {
        return ErrorClass.UNROUTABLE; // no stream listens on the subject
      }
      if (lower.contains("maximum payload")) {
        return ErrorClass.RECORD_TOO_LARGE;
      }
      return null;
    }
    return null;
  }
}

package io.tandem.rabbitmq.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.AuthenticationFailureException;
import com.rabbitmq.client.ChannelContinuationTimeoutException;
import com.rabbitmq.client.Method;
import com.rabbitmq.client.MissedHeartbeatException;
import com.rabbitmq.client.ShutdownSignalException;
import io.tandem.core.ErrorClass;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Maps RabbitMQ client exceptions and broker close reasons (AMQP reply codes) onto Tandem's {@link
 * ErrorClass}es.
 *
 * <p>The broker answers a bad publish by closing the channel with a reply code and a text; the text
 * names the exchange ({@code NOT_FOUND - no exchange 'x' in vhost '/'}) or the size limit ({@code
 * PRECONDITION_FAILED - message size 200 is larger than configured max size 100}), which lets the
 * transport charge the failure to the events it concerns and retry the others.
 */
public final class RabbitErrors {
  private static final Pattern EXCHANGE = Pattern.compile("exchange '((?:[^']|'')*)'");
  private static final Pattern MAX_SIZE = Pattern.compile("larger than configured max size (\\d+)");

  private RabbitErrors() {}

  /**
   * The class of a failure while connecting: refused credentials or vhost access are {@link
   * ErrorClass#AUTHORIZATION}; anything else means the broker cannot be reached: {@link
   * ErrorClass#BROKER_UNAVAILABLE}.
   */
  public static ErrorClass classifyConnect(Throwable failure) {
    ErrorClass c = classify(failure);
    return c == ErrorClass.AUTHORIZATION ? c : ErrorClass.BROKER_UNAVAILABLE;
  }

  /**
   * The class of a failure on an established connection: the first exception in the cause chain
   * that tells decides; {@link ErrorClass#UNKNOWN} when none does.
   */
  public static ErrorClass classify(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      ErrorClass c = classifyOne(t);
      if (c != null) {
        return c;
      }
    }
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof IOException) {
        return ErrorClass.CONNECTION_LOST; // a socket error the client reports plainly
      }
    }
    return ErrorClass.UNKNOWN;
  }

  private static ErrorClass classifyOne(Throwable t) {
    if (t instanceof ShutdownSignalException sse) {
      return classifyShutdown(sse);
    }
    if (t instanceof AuthenticationFailureException) {
      return ErrorClass.AUTHORIZATION;
    }
    if (t instanceof ChannelContinuationTimeoutException) {
      return ErrorClass.TIMEOUT;
    }
    if (t instanceof MissedHeartbeatException) {
      return ErrorClass.CONNECTION_LOST; // a SocketTimeoutException, but on a live connection
    }
    if (t instanceof ConnectException
        || t instanceof NoRouteToHostException
        || t instanceof UnknownHostException
        || t instanceof SocketTimeoutException
        || t instanceof TimeoutException) {
      return ErrorClass.BROKER_UNAVAILABLE;
    }
    return null;
  }

  private static ErrorClass classifyShutdown(ShutdownSignalException sse) {
    if (sse.isInitiatedByApplication()) {
      return ErrorClass.TRANSIENT; // closed by this process (transport closed, channel replaced)
    }
    Method reason = sse.getReason();
    int code;
    String text;
    if (reason instanceof AMQP.Channel.Close close) {
      code = close.getReplyCode();
      text = close.getReplyText();
    } else if (reason instanceof AMQP.Connection.Close close) {
      code = close.getReplyCode();
      text = close.getReplyText();
    } else {
      return ErrorClass.CONNECTION_LOST; // I/O error, missed heartbeats: no reply code
    }
    return switch (code) {
      case AMQP.CONTENT_TOO_LARGE -> ErrorClass.RECORD_TOO_LARGE;
      case AMQP.ACCESS_REFUSED, AMQP.NOT_ALLOWED -> ErrorClass.AUTHORIZATION;
      case AMQP.NOT_FOUND -> ErrorClass.UNROUTABLE;
      case AMQP.PRECONDITION_FAILED ->
          isSizeLimit(text) ? ErrorClass.RECORD_TOO_LARGE : ErrorClass.UNKNOWN;
      case AMQP.FRAME_ERROR ->
          isSizeLimit(text) ? ErrorClass.RECORD_TOO_LARGE : ErrorClass.CONNECTION_LOST;
      case AMQP.RESOURCE_ERROR, AMQP.INTERNAL_ERROR -> ErrorClass.TRANSIENT;
      default -> sse.isHardError() ? ErrorClass.CONNECTION_LOST : ErrorClass.UNKNOWN;
    };
  }

  private static boolean isSizeLimit(String text) {
    String t = text == null ? "" : text.toLowerCase(java.util.Locale.ROOT);
    return t.contains("max size")
        || t.contains("message size")
        || t.contains("too large")
        || t.contains("frame_too_large");
  }

  /** The first {@link ShutdownSignalException} in the cause chain of {@code failure}. */
  public static Optional<ShutdownSignalException> shutdownOf(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ShutdownSignalException sse) {
        return Optional.of(sse);
      }
    }
    return Optional.empty();
  }

  /** The reply text of the close that {@code sse} reports, or its message. */
  public static String replyText(ShutdownSignalException sse) {
    if (sse.getReason() instanceof AMQP.Channel.Close close) {
      return close.getReplyCode() + " " + close.getReplyText();
    }
    if (sse.getReason() instanceof AMQP.Connection.Close close) {
      return close.getReplyCode() + " " + close.getReplyText();
    }
    return sse.getCause() != null ? sse.getCause().toString() : String.valueOf(sse.getMessage());
  }

  /** The exchange that the broker's close text names, e.g. {@code no exchange 'x' in vhost}. */
  public static Optional<String> exchangeNamed(ShutdownSignalException sse) {
    Matcher m = EXCHANGE.matcher(replyText(sse));
    return m.find() ? Optional.of(m.group(1)) : Optional.empty();
  }

  /** The broker's {@code max_message_size}, when the close text states it. */
  public static OptionalLong maxMessageSize(ShutdownSignalException sse) {
    Matcher m = MAX_SIZE.matcher(replyText(sse));
    return m.find() ? OptionalLong.of(Long.parseLong(m.group(1))) : OptionalLong.empty();
  }
}

package io.tandem.rabbitmq.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.AuthenticationFailureException;
import com.rabbitmq.client.ChannelContinuationTimeoutException;
import com.rabbitmq.client.MissedHeartbeatException;
import com.rabbitmq.client.ShutdownSignalException;
import io.tandem.core.ErrorClass;
import java.io.IOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** Classification of the client's exceptions, built as the client builds them from the wire. */
class RabbitErrorsTest {

  static ShutdownSignalException channelClosed(int code, String text) {
    AMQP.Channel.Close close =
        new AMQP.Channel.Close.Builder().replyCode(code).replyText(text).build();
    return new ShutdownSignalException(false, false, close, null);
  }

  static ShutdownSignalException connectionClosed(int code, String text) {
    AMQP.Connection.Close close =
        new AMQP.Connection.Close.Builder().replyCode(code).replyText(text).build();
    return new ShutdownSignalException(true, false, close, null);
  }

  /** A channel method failing as the client reports it: an IOException caused by the close. */
  static IOException wrapped(ShutdownSignalException sse) {
    return new IOException(sse);
  }

  @Test
  void classifiesBrokerCloseReasons() {
    assertThat(
            RabbitErrors.classify(
                wrapped(channelClosed(404, "NOT_FOUND - no exchange 'x' in vhost '/'"))))
        .isEqualTo(ErrorClass.UNROUTABLE);
    assertThat(
            RabbitErrors.classify(
                channelClosed(
                    403, "ACCESS_REFUSED - write access to exchange 'x' in vhost '/' refused")))
        .isEqualTo(ErrorClass.AUTHORIZATION);
    assertThat(
            RabbitErrors.classify(
                channelClosed(
                    406,
                    "PRECONDITION_FAILED - message size 2000 is larger than configured max size"
                        + " 1024")))
        .isEqualTo(ErrorClass.RECORD_TOO_LARGE);
    assertThat(
            RabbitErrors.classify(
                channelClosed(
                    406, "PRECONDITION_FAILED - inequivalent arg 'durable' for exchange 'x'")))
        .isEqualTo(ErrorClass.UNKNOWN);
    assertThat(RabbitErrors.classify(channelClosed(311, "CONTENT_TOO_LARGE")))
        .isEqualTo(ErrorClass.RECORD_TOO_LARGE);
    assertThat(RabbitErrors.classify(connectionClosed(501, "FRAME_ERROR - frame_too_large 200000")))
        .isEqualTo(ErrorClass.RECORD_TOO_LARGE);
    assertThat(RabbitErrors.classify(connectionClosed(501, "FRAME_ERROR - bad frame end")))
        .isEqualTo(ErrorClass.CONNECTION_LOST);
    assertThat(
            RabbitErrors.classify(
                connectionClosed(320, "CONNECTION_FORCED - broker forced connection closure")))
        .isEqualTo(ErrorClass.CONNECTION_LOST);
    assertThat(RabbitErrors.classify(connectionClosed(530, "NOT_ALLOWED - vhost x not found")))
        .isEqualTo(ErrorClass.AUTHORIZATION);
    assertThat(RabbitErrors.classify(channelClosed(541, "INTERNAL_ERROR")))
        .isEqualTo(ErrorClass.TRANSIENT);
    assertThat(RabbitErrors.classify(channelClosed(405, "RESOURCE_LOCKED")))
        .isEqualTo(ErrorClass.UNKNOWN);
  }

  @Test
  void aConnectionLostWithoutAReplyOrClosedByUsIsRetriable() {
    ShutdownSignalException io = new ShutdownSignalException(true, false, null, null);
    io.initCause(new IOException("I/O thread: reached EOF"));
    assertThat(RabbitErrors.classify(io)).isEqualTo(ErrorClass.CONNECTION_LOST);
    assertThat(RabbitErrors.classify(new AlreadyClosedException(io)))
        .isEqualTo(ErrorClass.CONNECTION_LOST);
    assertThat(RabbitErrors.classify(new ShutdownSignalException(true, true, null, null)))
        .isEqualTo(ErrorClass.TRANSIENT);
    assertThat(RabbitErrors.classify(new MissedHeartbeatException("missed")))
        .isEqualTo(ErrorClass.CONNECTION_LOST);
    assertThat(RabbitErrors.classify(new IOException("Frame enqueuing failed")))
        .isEqualTo(ErrorClass.CONNECTION_LOST);
  }

  @Test
  void classifiesConnectFailures() {
    assertThat(RabbitErrors.classifyConnect(new ConnectException("Connection refused")))
        .isEqualTo(ErrorClass.BROKER_UNAVAILABLE);
    assertThat(RabbitErrors.classifyConnect(new UnknownHostException("rabbit-9")))
        .isEqualTo(ErrorClass.BROKER_UNAVAILABLE);
    assertThat(RabbitErrors.classifyConnect(new TimeoutException("handshake")))
        .isEqualTo(ErrorClass.BROKER_UNAVAILABLE);
    assertThat(RabbitErrors.classifyConnect(new IOException("reset")))
        .isEqualTo(ErrorClass.BROKER_UNAVAILABLE);
    assertThat(
            RabbitErrors.classifyConnect(
                new AuthenticationFailureException("ACCESS_REFUSED - Login was refused")))
        .isEqualTo(ErrorClass.AUTHORIZATION);
    assertThat(
            RabbitErrors.classifyConnect(
                wrapped(connectionClosed(530, "NOT_ALLOWED - vhost shop not found"))))
        .isEqualTo(ErrorClass.AUTHORIZATION);
  }

  @Test
  void anRpcTimeoutIsATimeoutAndAnythingElseIsUnknown() {
    assertThat(
            RabbitErrors.classify(
                new ChannelContinuationTimeoutException(
                    new TimeoutException(), this, 1, new AMQP.Confirm.Select.Builder().build())))
        .isEqualTo(ErrorClass.TIMEOUT);
    assertThat(RabbitErrors.classify(new IllegalStateException("?"))).isEqualTo(ErrorClass.UNKNOWN);
  }

  @Test
  void readsTheExchangeAndTheSizeLimitFromTheCloseText() {
    assertThat(
            RabbitErrors.exchangeNamed(
                channelClosed(404, "NOT_FOUND - no exchange 'tandem.order' in vhost '/'")))
        .contains("tandem.order");
    assertThat(RabbitErrors.exchangeNamed(channelClosed(406, "PRECONDITION_FAILED - x"))).isEmpty();
    assertThat(
            RabbitErrors.maxMessageSize(
                channelClosed(406, "message size 2000 is larger than configured max size 1024")))
        .hasValue(1024);
    assertThat(RabbitErrors.replyText(channelClosed(404, "NOT_FOUND - gone")))
        .isEqualTo("404 NOT_FOUND - gone");
  }
}

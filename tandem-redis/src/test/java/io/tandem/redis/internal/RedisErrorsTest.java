package io.tandem.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.ErrorClass;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.util.NoSuchElementException;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

class RedisErrorsTest {
  @Test
  void errorRepliesAreClassifiedByTheirCode() {
    assertThat(
            RedisErrors.classifyReply(
                "WRONGTYPE Operation against a key holding the wrong kind of value"))
        .isEqualTo(ErrorClass.UNROUTABLE);
    assertThat(RedisErrors.classifyReply("OOM command not allowed when used memory > 'maxmemory'."))
        .isEqualTo(ErrorClass.TRANSIENT);
    assertThat(RedisErrors.classifyReply("MISCONF Redis is configured to save RDB snapshots"))
        .isEqualTo(ErrorClass.TRANSIENT);
    assertThat(RedisErrors.classifyReply("READONLY You can't write against a read only replica."))
        .isEqualTo(ErrorClass.TRANSIENT);
    assertThat(RedisErrors.classifyReply("NOAUTH Authentication required."))
        .isEqualTo(ErrorClass.AUTHORIZATION);
    assertThat(RedisErrors.classifyReply("NOPERM User tandem has no permissions to run 'xadd'"))
        .isEqualTo(ErrorClass.AUTHORIZATION);
    assertThat(RedisErrors.classifyReply("ERR something unexpected")).isEqualTo(ErrorClass.UNKNOWN);
    assertThat(RedisErrors.classifyReply(null)).isEqualTo(ErrorClass.UNKNOWN);
  }

  @Test
  void connectFailuresAreUnavailableUnlessRefusedOrOutOfTime() {
    assertThat(
            RedisErrors.classifyConnect(
                new JedisConnectionException("Failed to connect", new IOException("refused"))))
        .isEqualTo(ErrorClass.BROKER_UNAVAILABLE);
    assertThat(
            RedisErrors.classifyConnect(
                new JedisAccessControlException("WRONGPASS invalid username-password pair")))
        .isEqualTo(ErrorClass.AUTHORIZATION);
    assertThat(RedisErrors.classifyConnect(new JedisDataException("LOADING Redis is loading")))
        .isEqualTo(ErrorClass.TRANSIENT);
    assertThat(RedisErrors.classifyConnect(new NoSuchElementException("Timeout waiting for idle")))
        .isEqualTo(ErrorClass.TIMEOUT);
  }

  @Test
  void aBrokenConnectionIsATimeoutOnlyWhenTheReadTimedOut() {
    assertThat(
            RedisErrors.classifyConnectionFailure(
                new JedisConnectionException(new SocketTimeoutException("Read timed out"))))
        .isEqualTo(ErrorClass.TIMEOUT);
    assertThat(
            RedisErrors.classifyConnectionFailure(
                new JedisConnectionException(new IOException("Broken pipe"))))
        .isEqualTo(ErrorClass.CONNECTION_LOST);
  }
}

package io.tandem.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.ErrorClass;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.LeaderNotAvailableException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.NotEnoughReplicasAfterAppendException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;

class KafkaErrorsTest {

  @Test
  void classifiesKafkaClientExceptions() {
    assertThat(KafkaErrors.classify(new TimeoutException("t"))).isEqualTo(ErrorClass.TIMEOUT);
    assertThat(KafkaErrors.classify(new NotEnoughReplicasException("r")))
        .isEqualTo(ErrorClass.NOT_ENOUGH_REPLICAS);
    assertThat(KafkaErrors.classify(new NotEnoughReplicasAfterAppendException("r")))
        .isEqualTo(ErrorClass.NOT_ENOUGH_REPLICAS);
    assertThat(KafkaErrors.classify(new NetworkException("n")))
        .isEqualTo(ErrorClass.CONNECTION_LOST);
    assertThat(KafkaErrors.classify(new DisconnectException("d")))
        .isEqualTo(ErrorClass.CONNECTION_LOST);
    assertThat(KafkaErrors.classify(new LeaderNotAvailableException("l")))
        .isEqualTo(ErrorClass.TRANSIENT);
    assertThat(KafkaErrors.classify(new RecordTooLargeException("big")))
        .isEqualTo(ErrorClass.RECORD_TOO_LARGE);
    assertThat(KafkaErrors.classify(new RecordBatchTooLargeException("big")))
        .isEqualTo(ErrorClass.RECORD_TOO_LARGE);
    assertThat(KafkaErrors.classify(new SerializationException("s")))
        .isEqualTo(ErrorClass.SERIALIZATION);
    assertThat(KafkaErrors.classify(new TopicAuthorizationException("a")))
        .isEqualTo(ErrorClass.AUTHORIZATION);
    assertThat(KafkaErrors.classify(new AuthenticationException("a")))
        .isEqualTo(ErrorClass.AUTHORIZATION);
    assertThat(KafkaErrors.classify(new InvalidTopicException("i")))
        .isEqualTo(ErrorClass.UNROUTABLE);
    assertThat(KafkaErrors.classify(new KafkaException("?"))).isEqualTo(ErrorClass.UNKNOWN);
    assertThat(ErrorClass.UNKNOWN.retriable()).isFalse();
  }

  @Test
  void looksThroughWrappers() {
    assertThat(KafkaErrors.classify(new ExecutionException(new NotEnoughReplicasException("r"))))
        .isEqualTo(ErrorClass.NOT_ENOUGH_REPLICAS);
    assertThat(KafkaErrors.classify(new KafkaException("w", new RecordTooLargeException("b"))))
        .isEqualTo(ErrorClass.RECORD_TOO_LARGE);
  }

  @Test
  void aFatalProducerStateIsRetriableBecauseTheProducerIsReplaced() {
    assertThat(KafkaErrors.isFatalProducerState(new OutOfOrderSequenceException("o"))).isTrue();
    assertThat(KafkaErrors.classify(new OutOfOrderSequenceException("o")))
        .isEqualTo(ErrorClass.TRANSIENT);
    assertThat(KafkaErrors.classify(new ProducerFencedException("f")))
        .isEqualTo(ErrorClass.TRANSIENT);
    assertThat(KafkaErrors.classify(new IllegalStateException("producer closed")))
        .isEqualTo(ErrorClass.TRANSIENT);
    assertThat(KafkaErrors.isFatalProducerState(new ClusterAuthorizationException("c"))).isTrue();
    assertThat(KafkaErrors.classify(new ClusterAuthorizationException("c")))
        .isEqualTo(ErrorClass.AUTHORIZATION);
    assertThat(KafkaErrors.isFatalProducerState(new TimeoutException("t"))).isFalse();
  }
}

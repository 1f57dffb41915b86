package io.tandem.kafka.internal;

import io.tandem.core.ErrorClass;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.NotEnoughReplicasAfterAppendException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownProducerIdException;
import org.apache.kafka.common.errors.UnsupportedVersionException;

/** Maps Kafka client exceptions onto Tandem's {@link ErrorClass}es. */
public final class KafkaErrors {
  private KafkaErrors() {}

  /**
   * The class of {@code failure}: the first exception in its cause chain that Kafka's client
   * distinguishes decides; {@link ErrorClass#UNKNOWN} when none does. A fatal producer state (see
   * {@link #isFatalProducerState}) is {@link ErrorClass#TRANSIENT}, because the transport replaces
   * the producer and the next attempt can succeed.
   */
  public static ErrorClass classify(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      ErrorClass c = classifyOne(t);
      if (c != null) {
        return c;
      }
    }
    return isFatalProducerState(failure) ? ErrorClass.TRANSIENT : ErrorClass.UNKNOWN;
  }

  private static ErrorClass classifyOne(Throwable t) {
    if (t instanceof TimeoutException) {
      return ErrorClass.TIMEOUT;
    }
    if (t instanceof NotEnoughReplicasException
        || t instanceof NotEnoughReplicasAfterAppendException) {
      return ErrorClass.NOT_ENOUGH_REPLICAS;
    }
    if (t instanceof NetworkException || t instanceof DisconnectException) {
      return ErrorClass.CONNECTION_LOST;
    }
    if (t instanceof RetriableException) {
      return ErrorClass.TRANSIENT;
    }
    if (t instanceof RecordTooLargeException || t instanceof RecordBatchTooLargeException) {
      return ErrorClass.RECORD_TOO_LARGE;
    }
    if (t instanceof SerializationException) {
      return ErrorClass.SERIALIZATION;
    }
    if (t instanceof AuthorizationException || t instanceof AuthenticationException) {
      return ErrorClass.AUTHORIZATION;
    }
    if (t instanceof InvalidTopicException) {
      return ErrorClass.UNROUTABLE;
    }
    return null;
  }

  /**
   * Whether {@code failure} means the producer can send nothing more (fenced, sequence broken,
   * idempotent writes refused, closed) and must be replaced. Such a failure keeps its own class
   * when it has one ({@link ErrorClass#AUTHORIZATION} for a refused idempotent write).
   */
  public static boolean isFatalProducerState(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ProducerFencedException
          || t instanceof ClusterAuthorizationException
          || t instanceof OutOfOrderSequenceException
          || t instanceof UnknownProducerIdException
          || t instanceof UnsupportedVersionException
          || t instanceof IllegalStateException) {
        return true;
      }
    }
    return false;
  }
}

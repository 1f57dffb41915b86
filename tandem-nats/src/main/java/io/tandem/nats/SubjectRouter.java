package io.tandem.nats;

import io.tandem.core.Event;
import io.tandem.nats.internal.Subjects;
import java.util.Objects;

/**
 * Chooses the NATS subject of an event. The default, {@link #byAggregate()}, gives every aggregate
 * its own subject: {@code "tandem." + type + "." + id}, where
 *
 * <ul>
 *   <li>{@code type} is the aggregate type lowercased, with every character outside {@code
 *       [a-z0-9_-]} replaced by {@code '-'} ({@code Order} → {@code order}, {@code Stock Item} →
 *       {@code stock-item});
 *   <li>{@code id} is the aggregate id as one subject token ({@link #token}): every UTF-8 byte
 *       outside printable ASCII, and {@code '.'}, {@code '*'}, {@code '>'}, {@code '%'}, is
 *       percent-encoded as {@code %XX} ({@code order-42} stays {@code order-42}, {@code eu.42 b}
 *       becomes {@code eu%2E42%20b}). The rule is reversible, so two aggregates never share a
 *       subject.
 * </ul>
 *
 * <p>So the events of aggregate {@code Order/order-42} go to {@code tandem.order.order-42}; a
 * stream bound to {@code tandem.order.>} holds every order, and a consumer can filter one aggregate
 * by its subject.
 *
 * <pre>{@code
 * SubjectRouter router = SubjectRouter.byAggregate("shop.");      // shop.order.order-42
 * SubjectRouter audit = SubjectRouter.fixed("audit.events");       // everything to one subject
 * SubjectRouter custom = event -> "tenant." + SubjectRouter.token(event.headers().tenant().orElse("none"));
 * }</pre>
 *
 * <p>A router must return a literal subject (printable ASCII, no spaces, no wildcards, no empty
 * token); {@link JetStreamTransport} checks it and reports an event whose router throws or returns
 * an illegal subject as {@link io.tandem.core.ErrorClass#UNROUTABLE}. Implementations must be
 * thread-safe and should be pure functions of the event.
 */
@FunctionalInterface
public interface SubjectRouter {
  /** The prefix of {@link #byAggregate()}. */
  String DEFAULT_PREFIX = "tandem.";

  /** The subject for {@code event}; never null. */
  String subjectFor(Event event);

  /** The default rule: {@code byAggregate(DEFAULT_PREFIX)}. */
  static SubjectRouter byAggregate() {
    return byAggregate(DEFAULT_PREFIX);
  }

  /**
   * One subject per aggregate: {@code prefix} + the sanitized aggregate type + {@code "."} + the
   * aggregate id as one {@linkplain #token token}.
   *
   * @param prefix empty, or literal subject tokens ending with {@code '.'}, e.g. {@code "shop."}
   * @throws IllegalArgumentException if {@code prefix} is null or not such a prefix
   */
  static SubjectRouter byAggregate(String prefix) {
    Objects.requireNonNull(prefix, "prefix must not be null (use \"\" for no prefix)");
    if (!prefix.isEmpty()) {
      if (!prefix.endsWith(".")) {
        throw new IllegalArgumentException(
            "prefix '" + prefix + "' must end with '.', e.g. \"shop.\"");
      }
      Subjects.validate("prefix", prefix.substring(0, prefix.length() - 1));
    }
    return event ->
        prefix + Subjects.sanitize(event.aggregateType()) + "." + token(event.aggregateId());
  }

  /**
   * Every event to {@code subject}.
   *
   * @throws IllegalArgumentException if {@code subject} is not a literal NATS subject
   */
  static SubjectRouter fixed(String subject) {
    Subjects.validate("subject", subject);
    return event -> subject;
  }

  /**
   * {@code value} as one subject token: UTF-8 bytes outside printable ASCII, and {@code '.'},
   * {@code '*'}, {@code '>'}, {@code '%'}, become {@code %XX} (upper-case hex); everything else is
   * kept. Reversible: different values give different tokens.
   */
  static String token(String value) {
    return Subjects.token(Objects.requireNonNull(value, "value"));
  }
}

/**
 * Tandem's NATS JetStream transport: {@link io.tandem.nats.JetStreamTransport} publishes events
 * with {@code publishAsync} and counts an event as published only when its stream acknowledged it,
 * {@link io.tandem.nats.SubjectRouter} chooses each event's subject, and {@link
 * io.tandem.nats.NatsCloudEventsCodec} maps an {@link io.tandem.core.Event} to and from a NATS
 * message, and {@link io.tandem.nats.JetStreamMessageSource} consumes a stream through a durable
 * pull consumer for a consumer runner.
 *
 * <p>Wire format: CloudEvents 1.0 in binary content mode (NATS protocol binding): one {@code ce-}
 * header per attribute ({@code ce-id} = event_id, {@code ce-type} = event_type, {@code ce-source} =
 * the producing service, {@code ce-subject} = aggregate_id, {@code ce-time} = occurred_at), the
 * extensions {@code ce-partitionkey}, {@code ce-sequence}, {@code ce-aggregatetype}, {@code
 * ce-schemaversion} and one per event header, {@code content-type: application/json}, the payload
 * as the body, and {@code Nats-Msg-Id} = event_id for JetStream's de-duplication.
 */
package io.tandem.nats;

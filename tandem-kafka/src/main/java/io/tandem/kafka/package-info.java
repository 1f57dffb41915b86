/**
 * Tandem's Kafka transport: {@link io.tandem.kafka.KafkaTransport} publishes events with an
 * idempotent producer as CloudEvents 1.0 in binary content mode, {@link
 * io.tandem.kafka.KafkaMessageSource} feeds a consumer runner (records acknowledged in any order,
 * the contiguous acknowledged prefix of each partition committed), and {@link
 * io.tandem.kafka.CloudEventsKafkaCodec} maps an {@link io.tandem.core.Event} to and from a Kafka
 * record.
 *
 * <p>Wire format (one Kafka header per CloudEvents attribute, {@code ce_} prefix): {@code id} =
 * event_id, {@code type} = event_type, {@code source} = the producing service, {@code subject} =
 * aggregate_id, {@code time} = occurred_at, {@code content-type: application/json}, extensions
 * {@code partitionkey} = aggregate_id, {@code sequence} = aggregate_version, {@code aggregatetype},
 * {@code schemaversion} and one extension per event header ({@code traceparent}, {@code tenant},
 * ...). The record key is the aggregate id, so one aggregate's events share a partition and keep
 * their order.
 */
package io.tandem.kafka;

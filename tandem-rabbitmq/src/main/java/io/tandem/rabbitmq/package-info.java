/**
 * Tandem's RabbitMQ transport: {@link io.tandem.rabbitmq.RabbitTransport} publishes events with
 * publisher confirms as mandatory, persistent messages, {@link io.tandem.rabbitmq.ExchangeRouter}
 * chooses each event's exchange, {@link io.tandem.rabbitmq.RabbitCloudEventsCodec} maps an {@link
 * io.tandem.core.Event} to and from a message, and {@link io.tandem.rabbitmq.RabbitMessageSource}
 * consumes a queue for a consumer runner (manual acks, prefetch as back-pressure, single active
 * consumer for order across consumers).
 *
 * <p>Wire format: CloudEvents 1.0 in binary content mode with the AMQP binding's header names (one
 * string header per attribute, {@code cloudEvents_} prefix): {@code id} = event_id, {@code type} =
 * event_type, {@code source} = the producing service, {@code subject} = aggregate_id, {@code time}
 * = occurred_at, extensions {@code partitionkey} = aggregate_id, {@code sequence} =
 * aggregate_version, {@code aggregatetype}, {@code schemaversion} and one extension per event
 * header; {@code content_type} {@code application/json}, {@code message_id} = event_id, {@code
 * delivery_mode} 2. The routing key is the aggregate id, so a queue receives one aggregate's events
 * in order.
 */
package io.tandem.rabbitmq;

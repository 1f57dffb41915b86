/**
 * Tandem's Redis Streams transport: {@link io.tandem.redis.RedisStreamsTransport} appends events
 * with pipelined {@code XADD} commands and counts an event as published when Redis returned its
 * entry id, {@link io.tandem.redis.StreamRouter} chooses each event's stream key, and {@link
 * io.tandem.redis.RedisCloudEventsCodec} maps an {@link io.tandem.core.Event} to and from the
 * fields of a stream entry. On the consumer side, {@link io.tandem.redis.RedisStreamsMessageSource}
 * reads a consumer group with {@code XREADGROUP}, acknowledges with {@code XACK} and claims entries
 * left unacknowledged by dead consumers with {@code XAUTOCLAIM}.
 *
 * <p>Entry format: CloudEvents 1.0 in binary content mode, one {@code ce_} field per attribute
 * ({@code ce_id} = event_id, {@code ce_type} = event_type, {@code ce_source} = the producing
 * service, {@code ce_subject} = aggregate_id, {@code ce_time} = occurred_at), the extensions {@code
 * ce_partitionkey}, {@code ce_sequence}, {@code ce_aggregatetype}, {@code ce_schemaversion} and one
 * per event header, {@code datacontenttype: application/json}, and the payload in {@code data}.
 *
 * <p>Durability is only what the Redis server's persistence gives: see {@link
 * io.tandem.redis.RedisStreamsTransport}.
 */
package io.tandem.redis;

package io.tandem.cdc.internal;

/** An aggregate's identity: the unit of order. */
public record Aggregate(String type, String id) {}

package io.tandem.nats.internal;

import java.time.Duration;

/**
 * A JetStream stream the transport creates when it is missing: file storage, {@code subjects},
 * {@code duplicateWindow} and {@code replicas}. An existing stream is used as it is.
 */
public record StreamSetup(String name, String subjects, Duration duplicateWindow, int replicas) {}

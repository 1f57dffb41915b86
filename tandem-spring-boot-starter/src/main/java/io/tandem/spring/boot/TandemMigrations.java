package io.tandem.spring.boot;

/**
 * The outcome of applying Tandem's schema migrations on start; beans that use the outbox depend on
 * it, so the schema is current before they run.
 *
 * @param applied the number of migrations this start applied (0 when the schema was current)
 */
public record TandemMigrations(int applied) {}

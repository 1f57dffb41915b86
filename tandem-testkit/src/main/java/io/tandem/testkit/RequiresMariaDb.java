package io.tandem.testkit;

import io.tandem.testkit.internal.MariaDbCondition;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Skips the annotated test class (or method) when no MariaDB answers, before anything of it runs:
 * every test is reported as skipped, with the reason. It asks {@link TestInfrastructure#mariadb()},
 * so a MariaDB that is configured ({@code TANDEM_MARIADB_URL}) but does not answer fails the class
 * instead.
 *
 * <pre>{@code
 * @RequiresMariaDb
 * class MariaDbOutboxRelayTest extends OutboxRelayTest { ... }
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@ExtendWith(MariaDbCondition.class)
public @interface RequiresMariaDb {}

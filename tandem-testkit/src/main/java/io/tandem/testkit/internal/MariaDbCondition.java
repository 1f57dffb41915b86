package io.tandem.testkit.internal;

import io.tandem.testkit.RequiresMariaDb;
import io.tandem.testkit.TestInfrastructure;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.opentest4j.TestAbortedException;

/** The JUnit condition behind {@link RequiresMariaDb}. */
public final class MariaDbCondition implements ExecutionCondition {

  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    try {
      return ConditionEvaluationResult.enabled(
          "MariaDB answers at " + JdbcUrls.redact(TestInfrastructure.mariadb().jdbcUrl()));
    } catch (TestAbortedException e) {
      return ConditionEvaluationResult.disabled(e.getMessage());
    }
  }
}

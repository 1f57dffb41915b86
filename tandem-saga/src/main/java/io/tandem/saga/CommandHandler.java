package io.tandem.saga;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * A participant's local transaction for one saga command, on {@code connection} (never commit it):
 * the inbox record, this work, the participant's record of the step and the reply all commit
 * together.
 */
@FunctionalInterface
public interface CommandHandler {
  StepResult handle(Connection connection, SagaCommand command) throws SQLException;
}

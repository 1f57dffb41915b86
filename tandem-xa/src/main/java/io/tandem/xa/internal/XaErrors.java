package io.tandem.xa.internal;

import io.tandem.xa.BranchEvent;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import javax.transaction.xa.XAException;

/** What a driver's error means for a branch or a statement. */
final class XaErrors {
  private XaErrors() {}

  /**
   * The branch event an {@link XAException} from commit or rollback stands for: rolled back codes
   * (XA_RB*), heuristic codes (XA_HEUR*), and everything else as no answer (retry; recovery).
   * XAER_NOTA is the caller's to read: it depends on whether an earlier attempt may have worked.
   */
  static BranchEvent phaseTwoEvent(XAException e) {
    int code = e.errorCode;
    if (code >= XAException.XA_RBBASE && code <= XAException.XA_RBEND) {
      return BranchEvent.ROLLED_BACK;
    }
    if (code == XAException.XA_HEURCOM
        || code == XAException.XA_HEURRB
        || code == XAException.XA_HEURMIX
        || code == XAException.XA_HEURHAZ) {
      return BranchEvent.HEURISTIC;
    }
    return BranchEvent.NO_ANSWER;
  }

  static boolean notFound(XAException e) {
    return e.errorCode == XAException.XAER_NOTA;
  }

  /** Whether the prepare's failure is a vote no: the participant rolled the branch back. */
  static boolean votedNo(XAException e) {
    return e.errorCode >= XAException.XA_RBBASE && e.errorCode <= XAException.XA_RBEND;
  }

  /**
   * Whether a failed statement may have happened all the same: the connection broke (SQLState class
   * 08, PostgreSQL's 57P01-57P03 shutdowns) or the driver gave up waiting.
   */
  static boolean outcomeUnknown(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLRecoverableException
          || t instanceof SQLTimeoutException
          || t instanceof SQLTransientConnectionException) {
        return true;
      }
      if (t instanceof SQLException s && s.getSQLState() != null) {
        String state = s.getSQLState();
        if (state.startsWith("08") || state.startsWith("57P")) {
          return true;
        }
      }
    }
    return false;
  }

  /** A short description of an XA error for messages: its code's name and the driver's text. */
  static String describe(XAException e) {
    return codeName(e.errorCode) + (e.getMessage() == null ? "" : " (" + e.getMessage() + ")");
  }

  static String codeName(int code) {
    return switch (code) {
      case XAException.XA_RBROLLBACK -> "XA_RBROLLBACK";
      case XAException.XA_RBCOMMFAIL -> "XA_RBCOMMFAIL";
      case XAException.XA_RBDEADLOCK -> "XA_RBDEADLOCK";
      case XAException.XA_RBINTEGRITY -> "XA_RBINTEGRITY";
      case XAException.XA_RBOTHER -> "XA_RBOTHER";
      case XAException.XA_RBPROTO -> "XA_RBPROTO";
      case XAException.XA_RBTIMEOUT -> "XA_RBTIMEOUT";
      case XAException.XA_RBTRANSIENT -> "XA_RBTRANSIENT";
      case XAException.XA_HEURCOM -> "XA_HEURCOM";
      case XAException.XA_HEURRB -> "XA_HEURRB";
      case XAException.XA_HEURMIX -> "XA_HEURMIX";
      case XAException.XA_HEURHAZ -> "XA_HEURHAZ";
      case XAException.XAER_NOTA -> "XAER_NOTA";
      case XAException.XAER_RMERR -> "XAER_RMERR";
      case XAException.XAER_RMFAIL -> "XAER_RMFAIL";
      case XAException.XAER_INVAL -> "XAER_INVAL";
      case XAException.XAER_PROTO -> "XAER_PROTO";
      case XAException.XAER_DUPID -> "XAER_DUPID";
      case XAException.XAER_OUTSIDE -> "XAER_OUTSIDE";
      case XAException.XAER_ASYNC -> "XAER_ASYNC";
      default -> "XA error " + code;
    };
  }
}

/**
 * The coordinator's machinery: Tandem's xids, the per-database SQL of the decision log and of the
 * prepared-transaction views, connection pools of XA connections, the commit protocol and the
 * recovery planner (pure functions), and the code that applies them. Not API.
 */
package io.tandem.xa.internal;

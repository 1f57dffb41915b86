/**
 * The inbox, or idempotent consumer: {@link io.tandem.inbox.Inbox#handle} records the event id in
 * the same local transaction as the side effect, so a duplicate delivery changes nothing.
 */
package io.tandem.inbox;

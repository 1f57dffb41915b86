/** The inbox's internals: its SQL calls, the event envelope as JSON, the runner's lanes. */
package io.tandem.inbox.internal;

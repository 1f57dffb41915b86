/** Implementation details of tandem-outbox. Not API: may change without notice. */
package io.tandem.outbox.internal;

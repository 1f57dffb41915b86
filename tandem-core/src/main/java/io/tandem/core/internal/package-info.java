/** Implementation details of tandem-core. Not API: may change without notice. */
package io.tandem.core.internal;

/** Implementation details of tandem-jdbc. Not API: may change without notice. */
package io.tandem.jdbc.internal;

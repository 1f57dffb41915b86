/**
 * Tandem's one strict JSON mapper (one document, no trailing tokens), shared by its modules so that
 * the outbox, the inbox and the sagas read and write JSON alike. Public so that modules need no
 * other module's internals; applications may use it to read payloads as Tandem validates them.
 */
package io.tandem.core.json;

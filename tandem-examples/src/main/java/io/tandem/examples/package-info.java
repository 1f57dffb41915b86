/** What the reference systems' demos share: the checks they report after a run. */
package io.tandem.examples;

/** The {@code tandem} command line: thin wiring of the library's entry points. */
package io.tandem.cli;

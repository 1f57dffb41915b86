/**
 * Extension points of Tandem's core and the values they exchange: the {@link
 * io.tandem.core.spi.Transport} a relay publishes through, and the {@link
 * io.tandem.core.spi.MessageSource} a consumer runner receives from. Interfaces and values only.
 */
package io.tandem.core.spi;

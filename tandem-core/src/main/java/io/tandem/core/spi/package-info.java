/**
 * Extension points of Tandem's core: the {@link io.tandem.core.spi.Transport} a relay publishes
 * through and the values it exchanges. Interfaces and values only.
 */
package io.tandem.core.spi;

package io.tandem.spring.boot;

import io.tandem.spring.boottest.AbstractStarterFeaturesTest;

/** The shared feature tests (handlers, sagas, Redis transport, Flyway) on this starter's Boot. */
class StarterFeaturesTest extends AbstractStarterFeaturesTest {
  @Override
  protected String line() {
    return "boot4";
  }
}

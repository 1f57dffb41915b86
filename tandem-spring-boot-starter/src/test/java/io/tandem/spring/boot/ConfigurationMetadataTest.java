package io.tandem.spring.boot;

import io.tandem.spring.boottest.AbstractConfigurationMetadataTest;

/** The shared metadata checks, against this starter's configuration metadata. */
class ConfigurationMetadataTest extends AbstractConfigurationMetadataTest {}

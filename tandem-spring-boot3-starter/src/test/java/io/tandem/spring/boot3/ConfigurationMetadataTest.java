package io.tandem.spring.boot3;

import io.tandem.spring.boottest.AbstractConfigurationMetadataTest;

/** The shared metadata checks, against this starter's configuration metadata. */
class ConfigurationMetadataTest extends AbstractConfigurationMetadataTest {}

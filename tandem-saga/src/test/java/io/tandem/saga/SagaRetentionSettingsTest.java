package io.tandem.saga;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class SagaRetentionSettingsTest {

  @Test
  void settingsAreCheckedWithoutADataSourceAsBuildChecksThem() {
    assertThatThrownBy(() -> SagaRetention.builder().retention(Duration.ZERO).checkSettings())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("retention must be positive, was PT0S");
    assertThatThrownBy(() -> SagaRetention.builder().batchSize(0).checkSettings())
        .hasMessage("batchSize and maxBatches must be at least 1");
    SagaRetention.builder().retention(Duration.ofDays(1)).checkSettings(); // valid: no throw
  }

  @Test
  void buildStillNeedsADataSource() {
    assertThatThrownBy(() -> SagaRetention.builder().build()).hasMessage("dataSource is required");
  }
}

package io.tandem.xa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class XaSettingsTest {

  @Test
  void defaults() {
    XaSettings s = XaSettings.defaults("node-1");
    assertThat(s.recoveryInterval()).isEqualTo(Duration.ofSeconds(30));
    assertThat(s.presumeAbortAfter()).isEqualTo(Duration.ofSeconds(60));
    assertThat(s.phaseTwoTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(s.maxConnectionsPerParticipant()).isEqualTo(16);
    assertThat(s.rollbackRecordRetention()).isEqualTo(Duration.ofDays(1));
  }

  @Test
  void badSettingsAreRefusedNamingTheSettingAndTheValue() {
    assertThatThrownBy(() -> XaSettings.builder("node-1").presumeAbortAfter(Duration.ZERO).build())
        .hasMessage("presumeAbortAfter must be a positive duration, was PT0S");
    assertThatThrownBy(() -> XaSettings.builder("node-1").maxConnectionsPerParticipant(0).build())
        .hasMessageContaining("maxConnectionsPerParticipant must be between 1 and 1000, was 0");
    assertThatThrownBy(
            () ->
                XaSettings.builder("node-1")
                    .presumeAbortAfter(Duration.ofDays(2))
                    .rollbackRecordRetention(Duration.ofDays(1))
                    .build())
        .hasMessageContaining("rollbackRecordRetention (PT24H) must be at least presumeAbortAfter");
    assertThatThrownBy(() -> XaSettings.builder("").build()).hasMessageContaining("nodeId");
  }
}

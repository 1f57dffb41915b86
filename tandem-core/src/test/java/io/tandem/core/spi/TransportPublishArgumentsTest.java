package io.tandem.core.spi;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The argument checks every transport runs first on {@code publish}. */
class TransportPublishArgumentsTest {

  @Test
  void aTimeoutThatIsNotPositiveIsRefusedWithTheValue() {
    assertThatThrownBy(() -> Transport.checkPublishArguments(List.of(), Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("timeout must be a positive duration, was PT0S");
    assertThatThrownBy(() -> Transport.checkPublishArguments(List.of(), Duration.ofSeconds(-1)))
        .hasMessage("timeout must be a positive duration, was PT-1S");
    assertThatThrownBy(() -> Transport.checkPublishArguments(List.of(), null))
        .hasMessage("timeout must be a positive duration, was null");
  }

  @Test
  void noEventListIsRefusedAndAnEmptyOneWithAPositiveTimeoutPasses() {
    assertThatThrownBy(() -> Transport.checkPublishArguments(null, Duration.ofSeconds(1)))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("events must not be null");
    assertThatCode(() -> Transport.checkPublishArguments(List.of(), Duration.ofMillis(1)))
        .doesNotThrowAnyException();
  }
}

package io.tandem.nats.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class HeaderValuesTest {
  @Test
  void printableAsciiPassesUnchangedAndEverythingElseRoundTrips() {
    assertThat(HeaderValues.encode("00-4bf92f35-01 ")).isEqualTo("00-4bf92f35-01%20");
    assertThat(HeaderValues.encode("vendor=abc,x=y")).isEqualTo("vendor=abc,x=y");
    for (String value : new String[] {"é€ 😀", "100% \"quoted\"", "tab\there", "%41"}) {
      assertThat(HeaderValues.decode(HeaderValues.encode(value))).isEqualTo(value);
    }
  }

  @Test
  void malformedEscapesAreRejected() {
    assertThatThrownBy(() -> HeaderValues.decode("50%")).hasMessageContaining("index 2");
    assertThatThrownBy(() -> HeaderValues.decode("%C3")).hasMessageContaining("UTF-8");
  }
}

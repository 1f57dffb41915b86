package io.tandem.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class EventIdTest {

  @Test
  void idsAreVersion7AndCarryTheirTimestamp() {
    Instant now = Instant.parse("2026-11-30T10:15:30.123Z");
    EventId generator = new EventId(Clock.fixed(now, ZoneOffset.UTC));
    UUID id = generator.generate();
    assertThat(id.version()).isEqualTo(7);
    assertThat(id.variant()).isEqualTo(2);
    assertThat(EventId.timestampOf(id)).isEqualTo(now);
  }

  @Test
  void idsFromOneGeneratorStrictlyIncreaseEvenWithinOneMillisecond() {
    EventId generator =
        new EventId(Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC));
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) { // more than the 12-bit counter holds
      ids.add(generator.generate());
    }
    for (int i = 1; i < ids.size(); i++) {
      // UUIDv7 sorts by its unsigned byte order; compare the most significant bits unsigned.
      assertThat(
              Long.compareUnsigned(
                  ids.get(i).getMostSignificantBits(), ids.get(i - 1).getMostSignificantBits()))
          .as("id %d must be greater than id %d", i, i - 1)
          .isPositive();
    }
  }
}

package io.tandem.cdc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BinlogLagTest {
  private static final Map<String, Long> FILES = new LinkedHashMap<>();

  static {
    FILES.put("mariadb-bin.000001", 1_000L);
    FILES.put("mariadb-bin.000002", 5_000L);
    FILES.put("mariadb-bin.000003", 700L);
  }

  @Test
  void withinOneFileTheDifferenceOfPositions() {
    assertThat(lag("mariadb-bin.000003", 300, "mariadb-bin.000003", 700)).isEqualTo(400);
  }

  @Test
  void acrossFilesTheRestOfTheFirstTheFilesBetweenAndThePartOfTheLast() {
    // 1000 - 400 of the first, 5000 of the second, 650 of the current one
    assertThat(lag("mariadb-bin.000001", 400, "mariadb-bin.000003", 650)).isEqualTo(6_250);
  }

  @Test
  void aStoredPositionAheadOfTheServerIsNoLag() {
    assertThat(lag("mariadb-bin.000003", 800, "mariadb-bin.000003", 700)).isZero();
  }

  @Test
  void readsDebeziumsOffsetValue() {
    assertThat(
            BinlogLag.parse(
                "{\"ts_sec\":1764750000,\"file\":\"mariadb-bin.000002\",\"pos\":4711,\"row\":1}"))
        .contains(new BinlogLag.Position("mariadb-bin.000002", 4711));
    assertThat(BinlogLag.parse("{\"lsn\":123}")).isEmpty();
    assertThat(BinlogLag.parse("not json")).isEmpty();
  }

  private static long lag(String fromFile, long fromPos, String toFile, long toPos) {
    return BinlogLag.lag(
        new BinlogLag.Position(fromFile, fromPos), new BinlogLag.Position(toFile, toPos), FILES);
  }
}

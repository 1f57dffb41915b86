package io.tandem.xa.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.xa.GlobalTransactionId;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import javax.transaction.xa.Xid;
import org.junit.jupiter.api.Test;

class TandemXidTest {

  @Test
  void theLongestNodeIdAndParticipantFitMariaDbsLimits() {
    GlobalTransactionId id = GlobalTransactionId.next("n".repeat(27));
    TandemXid xid = new TandemXid(id, "p".repeat(32));
    assertThat(xid.getGlobalTransactionId()).hasSize(64);
    assertThat(xid.getBranchQualifier().length).isLessThanOrEqualTo(Xid.MAXBQUALSIZE);
    assertThat(xid.getFormatId()).isEqualTo(TandemXid.FORMAT_ID);
  }

  @Test
  void anOverLongNodeIdOrBadParticipantIsRefusedNamingTheParameter() {
    assertThatThrownBy(() -> GlobalTransactionId.next("n".repeat(28)))
        .hasMessageContaining("nodeId must be 1 to 27")
        .hasMessageContaining("64 bytes");
    assertThatThrownBy(() -> GlobalTransactionId.next("a b"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> TandemXid.checkParticipant("Accounts", "participant name"))
        .hasMessageContaining("participant name must be 1 to 32 lower-case");
  }

  @Test
  void xidsReadBackFromTheirPartsAndFromPostgresGids() {
    TandemXid xid = new TandemXid(GlobalTransactionId.next("billing-1"), "accounts");
    assertThat(TandemXid.from(xid)).contains(xid);
    assertThat(TandemXid.fromPostgresGid(xid.postgresGid())).contains(xid);
    assertThat(xid.toString()).isEqualTo(xid.global() + ":accounts");
  }

  @Test
  void foreignXidsAreNotTandems() {
    assertThat(TandemXid.fromPostgresGid("by-hand")).isEmpty();
    assertThat(TandemXid.fromPostgresGid("1_YQ==_Yg==")).isEmpty();
    byte[] g = "billing-1/not-a-uuid".getBytes(StandardCharsets.US_ASCII);
    assertThat(TandemXid.from(TandemXid.FORMAT_ID, g, "x".getBytes(StandardCharsets.US_ASCII)))
        .as("Tandem's format id but not Tandem's shape")
        .isEmpty();
  }

  @Test
  void aTandemShapedXidWithoutAUuidV7IsForeign() {
    String g = "manual-1/" + UUID.randomUUID(); // version 4
    assertThat(
            TandemXid.from(
                TandemXid.FORMAT_ID,
                g.getBytes(StandardCharsets.US_ASCII),
                "ledger".getBytes(StandardCharsets.US_ASCII)))
        .isEmpty();
    assertThatThrownBy(() -> GlobalTransactionId.parse(g))
        .hasMessageContaining("not a version 7 UUID");
  }

  @Test
  void aGlobalIdParsesAsItPrints() {
    GlobalTransactionId id = new GlobalTransactionId("n1", io.tandem.core.EventId.next());
    assertThat(GlobalTransactionId.parse(id.toString())).isEqualTo(id);
    assertThatThrownBy(() -> GlobalTransactionId.parse("1413762353_YQ==_Yg=="))
        .hasMessageContaining("not a Tandem transaction id");
  }
}

package io.tandem.xa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Properties of the branch lifecycle's transition table, over random sequences of answers. */
class BranchStatePropertyTest {

  @Provide
  Arbitrary<List<BranchEvent>> answers() {
    return Arbitraries.of(BranchEvent.class).list().ofMaxSize(12);
  }

  /** Walks the table, skipping the answers it refuses; returns the states passed through. */
  private static List<BranchState> walk(List<BranchEvent> events) {
    List<BranchState> path = new java.util.ArrayList<>(List.of(BranchState.ACTIVE));
    BranchState s = BranchState.ACTIVE;
    for (BranchEvent e : events) {
      if (s.allowed().contains(e)) {
        s = s.next(e);
        path.add(s);
      }
    }
    return path;
  }

  @Property
  void aTerminalStateNeverChanges(@ForAll("answers") List<BranchEvent> events) {
    List<BranchState> path = walk(events);
    int firstTerminal = -1;
    for (int i = 0; i < path.size(); i++) {
      if (path.get(i).isTerminal()) {
        firstTerminal = i;
        break;
      }
    }
    if (firstTerminal >= 0) {
      assertThat(path.subList(firstTerminal, path.size())).hasSize(1);
    }
  }

  @Property
  void aBranchCommitsOnlyFromPreparedInDoubtOrInOnePhase(
      @ForAll("answers") List<BranchEvent> events) {
    List<BranchState> path = walk(events);
    for (int i = 1; i < path.size(); i++) {
      if (path.get(i) == BranchState.COMMITTED) {
        assertThat(path.get(i - 1))
            .isIn(BranchState.PREPARED, BranchState.IN_DOUBT, BranchState.ACTIVE);
      }
    }
  }

  @Property
  void nothingFollowsARollbackOrAHeuristicOutcome(@ForAll("answers") List<BranchEvent> events) {
    List<BranchState> path = walk(events);
    for (int i = 0; i < path.size() - 1; i++) {
      assertThat(path.get(i)).isNotIn(BranchState.ROLLED_BACK, BranchState.HEURISTIC);
    }
  }

  @Property
  void aHeuristicOutcomeNeedsABranchThatWasPrepared(@ForAll("answers") List<BranchEvent> events) {
    List<BranchState> path = walk(events);
    if (path.contains(BranchState.HEURISTIC)) {
      assertThat(path).containsAnyOf(BranchState.PREPARED, BranchState.IN_DOUBT);
    }
  }

  @Property
  void everyRefusedAnswerThrowsAndNamesTheState(
      @ForAll BranchState state, @ForAll BranchEvent event) {
    if (state.allowed().contains(event)) {
      assertThat(state.next(event)).isNotNull();
    } else {
      assertThatThrownBy(() -> state.next(event))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining(state.name())
          .hasMessageContaining(event.name());
    }
  }
}

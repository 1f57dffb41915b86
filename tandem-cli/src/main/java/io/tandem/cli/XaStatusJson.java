package io.tandem.cli;

import io.tandem.xa.DecisionRecord;
import io.tandem.xa.GlobalTransactionId;
import io.tandem.xa.ParticipantStatus;
import io.tandem.xa.PreparedBranch;
import io.tandem.xa.XaStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@link XaStatus} as JSON-ready maps: {@code tandem xa status --json} and the dashboard. */
final class XaStatusJson {
  private XaStatusJson() {}

  static Map<String, Object> of(XaStatus s) {
    List<Map<String, Object>> branches = new ArrayList<>();
    for (PreparedBranch b : s.branches()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("participant", b.participant());
      m.put("xid", b.xid());
      m.put("transaction", b.global().map(GlobalTransactionId::toString).orElse(null));
      m.put("foreign", b.foreign());
      m.put("node", b.node().orElse(null));
      m.put("prepared_at", b.preparedAt().map(Object::toString).orElse(null));
      m.put("age_ms", b.age(s.at()).map(Duration::toMillis).orElse(null));
      m.put("owner", b.owner().orElse(null));
      m.put("decision", b.decision().map(Enum::name).orElse(null));
      m.put("locks", b.locks());
      m.put("blocked_sessions", b.blockedSessions() < 0 ? null : b.blockedSessions());
      branches.add(m);
    }
    List<Map<String, Object>> participants = new ArrayList<>();
    for (ParticipantStatus p : s.participants()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("name", p.name());
      m.put("database", p.database().orElse(null));
      m.put("error", p.error().orElse(null));
      m.put("note", p.note().orElse(null));
      participants.add(m);
    }
    List<Map<String, Object>> decisions = new ArrayList<>();
    for (DecisionRecord d : s.decisions()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("transaction", d.global().toString());
      m.put("decision", d.decision().name());
      m.put("participants", d.participants());
      m.put("decided_by", d.decidedBy());
      m.put("decided_at", d.decidedAt().toString());
      m.put("heuristic", d.heuristic().orElse(null));
      decisions.add(m);
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("at", s.at().toString());
    out.put("oldest_in_doubt_ms", s.oldestInDoubt().map(Duration::toMillis).orElse(null));
    out.put("branches", branches);
    out.put("participants", participants);
    out.put("decisions", decisions);
    return out;
  }
}

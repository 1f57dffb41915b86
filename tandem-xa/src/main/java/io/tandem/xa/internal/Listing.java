package io.tandem.xa.internal;

import java.util.List;
import java.util.Optional;

/** Every prepared branch one participant's database lists, and what it could not tell. */
public record Listing(List<ListedBranch> branches, Optional<String> note) {
  public Listing {
    branches = List.copyOf(branches);
  }
}

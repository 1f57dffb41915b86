package io.tandem.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;

/** Nearest-rank percentiles of a sample, in milliseconds. */
final class Percentiles {
  private final List<Double> sorted;

  Percentiles(Collection<Double> values) {
    sorted = new ArrayList<>(values);
    Collections.sort(sorted);
  }

  double at(double p) {
    if (sorted.isEmpty()) {
      return Double.NaN;
    }
    int index = (int) Math.ceil(p * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(index, sorted.size() - 1)));
  }

  int size() {
    return sorted.size();
  }
}

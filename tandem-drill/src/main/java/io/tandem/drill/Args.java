package io.tandem.drill;

import io.tandem.testkit.JvmProcess;
import java.util.HashMap;
import java.util.Map;

/** {@code --name value} arguments of a role process; flags without a value are {@code "true"}. */
final class Args {
  private final Map<String, String> values = new HashMap<>();

  Args(String[] args, int from) {
    for (int i = from; i < args.length; i++) {
      String a = args[i];
      if (!a.startsWith("--")) {
        throw new IllegalArgumentException("unexpected argument '" + a + "'");
      }
      String name = a.substring(2);
      if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
        values.put(name, JvmProcess.argument(args[++i])); // env:NAME carries a secret
      } else {
        values.put(name, "true");
      }
    }
  }

  String required(String name) {
    String v = values.get(name);
    if (v == null) {
      throw new IllegalArgumentException("missing --" + name);
    }
    return v;
  }

  String get(String name, String fallback) {
    return values.getOrDefault(name, fallback);
  }

  int intValue(String name, int fallback) {
    String v = values.get(name);
    return v == null ? fallback : Integer.parseInt(v);
  }

  boolean flag(String name) {
    return Boolean.parseBoolean(values.getOrDefault(name, "false"));
  }
}

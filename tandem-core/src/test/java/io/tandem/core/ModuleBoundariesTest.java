package io.tandem.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No module reaches into another module's {@code internal} package: what one module needs of
 * another is that module's API. Checked on the sources of every module of the build (main and test
 * code, imports and fully qualified names alike), so a new module is covered without being listed
 * here.
 */
class ModuleBoundariesTest {
  private static final Pattern INTERNAL = Pattern.compile("io\\.tandem\\.(\\w+)\\.internal\\b");

  @Test
  void noModuleUsesAnotherModulesInternals() throws IOException {
    List<Path> modules = modules(projectRoot());
    assertThat(modules).as("modules found").hasSizeGreaterThan(10);
    List<String> violations = new ArrayList<>();
    for (Path module : modules) {
      Set<String> own = ownPackages(module);
      for (Path source : sources(module)) {
        String text = Files.readString(source);
        Matcher m = INTERNAL.matcher(text);
        while (m.find()) {
          if (!own.contains(m.group(1))) {
            violations.add(
                module.getFileName() + ": " + module.relativize(source) + " uses " + m.group());
          }
        }
      }
    }
    assertThat(violations)
        .as("uses of another module's internal package (make what is needed API instead)")
        .isEmpty();
  }

  /** The checkout's root: the nearest folder up from here whose pom.xml is tandem-parent. */
  private static Path projectRoot() throws IOException {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path pom = dir.resolve("pom.xml");
      if (Files.isRegularFile(pom)
          && Files.readString(pom).contains("<artifactId>tandem-parent</artifactId>")
          && Files.isDirectory(dir.resolve("tandem-core"))) {
        return dir;
      }
    }
    throw new IllegalStateException("no Tandem checkout above " + Path.of("").toAbsolutePath());
  }

  private static List<Path> modules(Path root) throws IOException {
    try (Stream<Path> dirs = Files.list(root)) {
      return dirs.filter(d -> Files.isRegularFile(d.resolve("pom.xml")))
          .filter(d -> Files.isDirectory(d.resolve("src")))
          .sorted()
          .toList();
    }
  }

  /** The packages directly under {@code io.tandem} that the module's own sources declare. */
  private static Set<String> ownPackages(Path module) throws IOException {
    Set<String> own = new TreeSet<>();
    for (String tree : List.of("src/main/java/io/tandem", "src/test/java/io/tandem")) {
      Path dir = module.resolve(tree);
      if (Files.isDirectory(dir)) {
        try (Stream<Path> packages = Files.list(dir)) {
          packages.filter(Files::isDirectory).forEach(p -> own.add(p.getFileName().toString()));
        }
      }
    }
    return own;
  }

  private static List<Path> sources(Path module) {
    List<Path> all = new ArrayList<>();
    for (String tree : List.of("src/main/java", "src/test/java")) {
      Path dir = module.resolve(tree);
      if (Files.isDirectory(dir)) {
        try (Stream<Path> files = Files.walk(dir)) {
          files.filter(f -> f.toString().endsWith(".java")).forEach(all::add);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
    return all;
  }
}

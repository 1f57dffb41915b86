package io.tandem.testkit.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/** Creates and deletes the temporary directories that hold server data. */
public final class TemporaryDirectory {

  private TemporaryDirectory() {}

  /** Creates a new directory under {@code java.io.tmpdir} whose name starts with {@code prefix}. */
  public static Path create(String prefix) {
    try {
      return Files.createTempDirectory(prefix);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot create a temporary directory under "
              + System.getProperty("java.io.tmpdir")
              + "; check that it exists, is writable and has free space",
          e);
    }
  }

  /** Deletes {@code directory} and everything below it; a missing directory is fine. */
  public static void delete(Path directory) {
    if (!Files.exists(directory)) {
      return;
    }
    try {
      Files.walkFileTree(
          directory,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes)
                throws IOException {
              Files.deleteIfExists(file);
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
              if (e instanceof NoSuchFileException) {
                return FileVisitResult.CONTINUE;
              }
              throw e;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
              Files.deleteIfExists(dir);
              return FileVisitResult.CONTINUE;
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot delete temporary directory " + directory, e);
    }
  }
}

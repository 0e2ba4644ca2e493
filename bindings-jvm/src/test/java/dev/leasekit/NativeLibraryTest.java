package dev.leasekit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How the native library is found, extracted and checked against the jar's version. */
class NativeLibraryTest {
  @Test
  void theLoadedLibraryHasTheJarsVersion() {
    String jar = NativeLibrary.jarVersion();
    assertTrue(jar.matches("\\d+\\.\\d+\\.\\d+.*"), jar);
    assertEquals(jar, NativeLibrary.libraryVersion());
  }

  @Test
  void aLibraryOfAnotherVersionIsRefusedNamingBoth() {
    assertNull(NativeLibrary.versionMismatch("0.1.0", "0.1.0"));
    String message = NativeLibrary.versionMismatch("0.1.0", "0.2.0");
    assertNotNull(message);
    assertTrue(message.contains("0.1.0") && message.contains("0.2.0"), message);
  }

  @Test
  void thePropertyChoosesTheExtractionDirectory(@TempDir Path dir) throws IOException {
    Path target = dir.resolve("not-yet-created");
    String before = System.getProperty(NativeLibrary.EXTRACT_DIR_PROPERTY);
    System.setProperty(NativeLibrary.EXTRACT_DIR_PROPERTY, target.toString());
    try {
      assertEquals(target, NativeLibrary.extractionDirectory());
      Path file = NativeLibrary.extractResource("/dev/leasekit/leasekit-version.properties");
      assertNotNull(file);
      assertEquals(target, file.getParent().getParent());
      assertTrue(Files.readString(file).contains("version=" + NativeLibrary.jarVersion()));
      assertNull(NativeLibrary.extractResource("/dev/leasekit/no-such-resource"));
    } finally {
      if (before == null) {
        System.clearProperty(NativeLibrary.EXTRACT_DIR_PROPERTY);
      } else {
        System.setProperty(NativeLibrary.EXTRACT_DIR_PROPERTY, before);
      }
    }
  }
}

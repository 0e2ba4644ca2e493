package dev.leasekit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Loading, panics and nulls at the JNI boundary. */
class NativeBoundaryTest {
  @Test
  void libraryLoadsAndReportsItsSource() {
    NativeLibrary.load();
    assertNotNull(NativeLibrary.loadedFrom());
    assertTrue(NativeLibrary.resourceName().startsWith("/native/"));
    assertTrue(NativeLibrary.resourceName().endsWith(System.mapLibraryName("leasekit_jvm")));
  }

  @Test
  void extractsAResourceToATemporaryFile() throws Exception {
    Path file = NativeLibrary.extractResource("/dev/leasekit/LeaseGuard.class");
    assertNotNull(file);
    assertTrue(Files.size(file) > 0);
    assertNull(NativeLibrary.extractResource("/native/none/libnothing.so"));
  }

  @Test
  void aRustPanicBecomesAnInternalErrorException() {
    InternalErrorException e = assertThrows(InternalErrorException.class, Native::panicForTest);
    assertEquals(ErrorCode.INTERNAL_ERROR, e.code());
    assertTrue(e.retryable());
    // The JVM is still fine and the library still answers.
    assertTrue(Capabilities.isReservedCapabilityName("fs.read"));
    assertThrows(InternalErrorException.class, Native::panicForTest);
  }

  @Test
  void nullArgumentsReachingNativeAreInvalidRequests() {
    InvalidRequestException e =
        assertThrows(InvalidRequestException.class, () -> Native.canonicalizeTarget(null, "/x"));
    assertEquals(ErrorCode.INVALID_REQUEST, e.code());
    assertThrows(InvalidRequestException.class, () -> Native.leaseCanonical(null));
  }

  @Test
  void malformedJsonIsAnInvalidRequest() {
    assertThrows(InvalidRequestException.class, () -> Lease.fromJson("{"));
    assertThrows(InvalidRequestException.class, () -> Lease.fromJson("[]"));
  }
}

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
  void theAuthorizeNativesMapPanicsAndErrorsTheSameWay() {
    InternalErrorException panic =
        assertThrows(InternalErrorException.class, Native::panicForTestRaw);
    assertEquals(ErrorCode.INTERNAL_ERROR, panic.code());
    assertTrue(panic.getMessage().contains("deliberate panic"), panic.getMessage());
    assertThrows(InternalErrorException.class, Native::panicForTestRaw);

    assertThrows(
        InvalidRequestException.class,
        () -> Native.guardAuthorize(0, 0, -1, "fs.read", -1, 7, "/x", 2));
    assertThrows(InvalidRequestException.class, () -> Native.guardAuthorizeModel(0, 0, -1, "m", 1));
    Lease lease =
        Lease.builder()
            .allow("fs.read", "/**")
            .expiresAt(java.time.Instant.parse("2100-01-01T00:00:00Z"))
            .build();
    long systemClock =
        Native.guardNew(lease.toJson(), lease.constraints().toJson(), 0, false, true);
    long callerClock =
        Native.guardNew(lease.toJson(), lease.constraints().toJson(), 0, false, false);
    try {
      InvalidRequestException nul =
          assertThrows(
              InvalidRequestException.class,
              () -> Native.guardAuthorize(systemClock, 0, -1, null, -1, 0, "/x", 2));
      assertTrue(nul.getMessage().contains("capability must not be null"), nul.getMessage());
      assertThrows(
          InvalidRequestException.class,
          () -> Native.guardAuthorize(systemClock, 0, -1, "fs.read", -1, 7, null, 0));
      assertThrows(
          InvalidRequestException.class,
          () -> Native.guardAuthorizeModel(systemClock, 0, -1, null, 0));
      assertThrows(
          InvalidRequestException.class,
          () -> Native.guardAuthorize(systemClock, 0, 1_000_000_000, "fs.read", -1, 7, "/x", 2));
      assertNull(Native.guardAuthorize(systemClock, 0, -1, "fs.read", -1, 7, "/x", 2));
      assertEquals("/x", Native.guardAuthorize(systemClock, 0, -1, "fs.read", -1, 7, "/x/", 3));
      assertNull(Native.guardAuthorize(callerClock, 0, 0, "fs.read", -1, 7, "/x", 2));
      // A reserved capability may come as its code (the native side then does not read it).
      assertNull(Native.guardAuthorize(systemClock, 0, -1, "fs.read", 0, 7, "/x", 2));
      assertThrows(
          InvalidRequestException.class,
          () -> Native.guardAuthorize(systemClock, 0, -1, "fs.read", 7, 7, "/x", 2));
      assertThrows(
          InvalidRequestException.class,
          () -> Native.guardAuthorize(systemClock, 0, -1, "fs.read", -2, 7, "/x", 2));
      // A guard on the caller's clock given no instant fails closed (it never guesses the time).
      assertThrows(
          InternalErrorException.class,
          () -> Native.guardAuthorize(callerClock, 0, -1, "fs.read", -1, 7, "/x", 2));
    } finally {
      Native.guardFree(systemClock);
      Native.guardFree(callerClock);
    }
  }

  @Test
  void reservedCapabilityCodesAreTheCoresReservedNames() {
    java.util.Map<String, Integer> codes = ReservedCapabilities.codes();
    assertEquals(7, codes.size());
    for (var e : codes.entrySet()) {
      assertTrue(Capabilities.isReservedCapabilityName(e.getKey()), e.getKey());
      assertEquals(e.getValue(), ReservedCapabilities.code(new String(e.getKey().toCharArray())));
    }
    assertEquals(0, ReservedCapabilities.code("fs.read"));
    assertEquals(-1, ReservedCapabilities.code("x-acme.tool.run"));
    assertEquals(-1, ReservedCapabilities.code("fs.read "));
    assertEquals(-1, ReservedCapabilities.code("FS.READ"));
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

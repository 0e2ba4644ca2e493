package dev.leasekit.arcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arcp.core.error.ArcpException;
import dev.arcp.core.error.BudgetExhaustedException;
import dev.arcp.core.error.LeaseExpiredException;
import dev.arcp.core.error.PermissionDeniedException;
import dev.leasekit.ErrorCode;
import dev.leasekit.InvalidRequestException;
import dev.leasekit.Lease;
import dev.leasekit.LeaseConstraints;
import dev.leasekit.LeaseException;
import dev.leasekit.LeaseGuard;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/**
 * {@link ArcpLeaseGuard}: the SDK's guard shape backed by leasekit. "The SDK" here is the test
 * stand-ins of {@code dev.arcp.core.error} (the SDK is not published to a Maven repository).
 */
class ArcpLeaseGuardTest {
  static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
  static final Clock BEFORE = Clock.fixed(T0.minusSeconds(60), ZoneOffset.UTC);
  static final Clock AFTER = Clock.fixed(T0, ZoneOffset.UTC);

  static Lease lease() {
    return Lease.builder()
        .allow("fs.read", "/data/**")
        .allow("model.use", "gpt-4*")
        .budget("USD", new BigDecimal("1.00"))
        .build();
  }

  static ArcpLeaseGuard guard(Clock clock) {
    return new ArcpLeaseGuard(lease(), LeaseConstraints.of(T0), clock);
  }

  @Test
  void traversalIsCanonicalizedAndDenied() {
    try (ArcpLeaseGuard guard = guard(BEFORE)) {
      // The SDK's own guard grants this target under /data/** (no canonicalization).
      PermissionDeniedException denied =
          assertThrows(
              PermissionDeniedException.class,
              () -> guard.authorize("fs.read", "/data/../etc/passwd"));
      assertFalse(denied.retryable());
      assertEquals("PERMISSION_DENIED", denied.code().name());
      assertEquals("/data/b.txt", guard.authorize("fs.read", "/data/a/../b.txt"));
      assertEquals("/data/x.txt", guard.authorize("fs.read", "/data/x.txt"));
    }
  }

  @Test
  void expiryIsCheckedFirst() {
    try (ArcpLeaseGuard guard = guard(AFTER)) {
      guard.budget().decrement("USD", new BigDecimal("5"));
      // Expired, exhausted and denied at once: expiry wins, as in the SDK.
      LeaseExpiredException expired =
          assertThrows(LeaseExpiredException.class, () -> guard.authorize("fs.read", "/etc/x"));
      assertFalse(expired.retryable());
      assertThrows(LeaseExpiredException.class, () -> guard.authorizeModel("gpt-4o"));
      assertThrows(LeaseExpiredException.class, () -> guard.authorize("fs.read", "relative"));
    }
  }

  @Test
  void theBudgetIsCheckedByEveryCall() {
    try (ArcpLeaseGuard guard = guard(BEFORE)) {
      assertEquals("gpt-4o", guard.authorizeModel("gpt-4o"));
      guard.budget().decrement("USD", new BigDecimal("1.00"));
      BudgetExhaustedException exhausted =
          assertThrows(BudgetExhaustedException.class, () -> guard.authorizeModel("gpt-4o"));
      assertEquals("BUDGET_EXHAUSTED", exhausted.code().name());
      assertThrows(BudgetExhaustedException.class, () -> guard.authorize("fs.read", "/data/x"));
    }
  }

  @Test
  void aMalformedTargetIsADenialWithTheInvalidRequestAsCause() {
    try (ArcpLeaseGuard guard = guard(BEFORE)) {
      for (String[] call :
          new String[][] {{"fs.read", "notes.txt"}, {"acme.unknown", "x"}, {"fs.read", ""}}) {
        PermissionDeniedException denied =
            assertThrows(PermissionDeniedException.class, () -> guard.authorize(call[0], call[1]));
        assertFalse(denied.retryable());
        LeaseException leasekit = ArcpErrors.leasekitException(denied).orElseThrow();
        assertEquals(ErrorCode.PERMISSION_DENIED, leasekit.code());
        InvalidRequestException cause =
            assertInstanceOf(InvalidRequestException.class, leasekit.getCause());
        assertEquals(ErrorCode.INVALID_REQUEST, cause.code());
      }
    }
  }

  @Test
  void withoutTheSdkLeasekitsExceptionsAreThrown() {
    ArcpErrors absent = SdkLoaders.absent();
    LeaseGuard inner = LeaseGuard.builder(lease()).clock(BEFORE).build();
    try (ArcpLeaseGuard guard = new ArcpLeaseGuard(inner, absent)) {
      dev.leasekit.PermissionDeniedException denied =
          assertThrows(
              dev.leasekit.PermissionDeniedException.class,
              () -> guard.authorize("fs.read", "/data/../etc/passwd"));
      assertEquals(ErrorCode.PERMISSION_DENIED, denied.code());
      assertFalse(denied.retryable());
      dev.leasekit.PermissionDeniedException relative =
          assertThrows(
              dev.leasekit.PermissionDeniedException.class,
              () -> guard.authorize("fs.read", "notes.txt"));
      assertInstanceOf(InvalidRequestException.class, relative.getCause());
      guard.budget().decrement("USD", new BigDecimal("2"));
      dev.leasekit.BudgetExhaustedException exhausted =
          assertThrows(
              dev.leasekit.BudgetExhaustedException.class, () -> guard.authorizeModel("gpt-4o"));
      assertFalse(exhausted.retryable());
    }
    LeaseGuard expiring =
        LeaseGuard.builder(lease()).constraints(LeaseConstraints.of(T0)).clock(AFTER).build();
    try (ArcpLeaseGuard guard = new ArcpLeaseGuard(expiring, absent)) {
      dev.leasekit.LeaseExpiredException expired =
          assertThrows(
              dev.leasekit.LeaseExpiredException.class,
              () -> guard.authorize("fs.read", "/data/x"));
      assertEquals(ErrorCode.LEASE_EXPIRED, expired.code());
    }
  }

  /** Declared like the SDK's {@code JobContext.authorize}. */
  interface SdkShapedContext {
    void authorize(String namespace, String target)
        throws PermissionDeniedException, LeaseExpiredException, BudgetExhaustedException;
  }

  /**
   * The code a runtime built on the SDK reports for what an agent throws, mapped the way the SDK's
   * job runner maps it: its three lease exceptions by type, anything else as INTERNAL_ERROR.
   */
  static String reportedCode(SdkShapedContext ctx, String namespace, String target) {
    try {
      ctx.authorize(namespace, target);
      return "SUCCESS";
    } catch (LeaseExpiredException e) {
      return "LEASE_EXPIRED";
    } catch (PermissionDeniedException e) {
      return "PERMISSION_DENIED";
    } catch (BudgetExhaustedException e) {
      return "BUDGET_EXHAUSTED";
    } catch (Exception e) {
      return "INTERNAL_ERROR";
    }
  }

  @Test
  void aDenialReachesAnSdkRuntimeWithItsOwnCode() {
    try (ArcpLeaseGuard bridged = guard(BEFORE);
        LeaseGuard plain =
            LeaseGuard.builder(lease())
                .constraints(LeaseConstraints.of(T0))
                .clock(BEFORE)
                .build()) {
      SdkShapedContext viaCompat = bridged::authorize;
      SdkShapedContext viaPlainLeasekit = plain::authorize;
      assertEquals("PERMISSION_DENIED", reportedCode(viaCompat, "fs.read", "/data/../etc/passwd"));
      assertEquals("PERMISSION_DENIED", reportedCode(viaCompat, "fs.read", "notes.txt"));
      // leasekit's own guard is a foreign exception there: a retryable internal error.
      assertEquals(
          "INTERNAL_ERROR", reportedCode(viaPlainLeasekit, "fs.read", "/data/../etc/passwd"));
      assertEquals("SUCCESS", reportedCode(viaCompat, "fs.read", "/data/ok"));
      bridged.budget().decrement("USD", new BigDecimal("1"));
      assertEquals("BUDGET_EXHAUSTED", reportedCode(viaCompat, "fs.read", "/data/ok"));
    }
  }

  @Test
  void anSdkHandlerCatchesTheBaseClass() {
    try (ArcpLeaseGuard guard = guard(BEFORE)) {
      SdkShapedContext ctx = guard::authorize;
      try {
        ctx.authorize("fs.read", "/etc/passwd");
        throw new AssertionError("not denied");
      } catch (ArcpException e) {
        assertEquals("PERMISSION_DENIED", e.code().name());
        assertFalse(e.retryable());
      }
    }
  }

  @Test
  void accessorsExposeTheLeasekitGuard() {
    try (ArcpLeaseGuard guard = guard(BEFORE)) {
      assertEquals(LeaseConstraints.of(T0), guard.constraints());
      assertEquals(lease().asMap(), guard.lease().asMap());
      assertEquals(0, guard.guard().remaining().get("USD").compareTo(BigDecimal.ONE));
      guard.close();
      assertTrue(guard.guard().isClosed());
      assertThrows(LeaseExpiredException.class, () -> guard.authorize("fs.read", "/data/x"));
    }
  }
}

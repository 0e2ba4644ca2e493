package dev.leasekit.arcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arcp.core.error.ArcpException;
import dev.leasekit.BudgetExhaustedException;
import dev.leasekit.ErrorCode;
import dev.leasekit.InternalErrorException;
import dev.leasekit.InvalidRequestException;
import dev.leasekit.LeaseException;
import dev.leasekit.LeaseExpiredException;
import dev.leasekit.LeaseSubsetViolationException;
import dev.leasekit.PermissionDeniedException;
import dev.leasekit.TimeoutException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link ArcpErrors} with the SDK's exception classes present (the test stand-ins of {@code
 * dev.arcp.core.error}, reproducing the SDK's published signatures), absent, and present under the
 * SDK's names with the wrong shape.
 */
class ArcpErrorsTest {
  static final List<LeaseException> LEASEKIT_ERRORS =
      List.of(
          new PermissionDeniedException("denied", Map.of("capability", "fs.read")),
          new LeaseExpiredException("expired"),
          new BudgetExhaustedException("exhausted"),
          new LeaseSubsetViolationException("wider", Map.of("witness", "/x")),
          new InvalidRequestException("bad"),
          new InternalErrorException("boom"));

  @Test
  void eachCodeBecomesTheSdkExceptionOfTheSameCode() {
    for (LeaseException error : LEASEKIT_ERRORS) {
      Exception sdk = ArcpErrors.standard().translate(error);
      ArcpException arcp = assertInstanceOf(ArcpException.class, sdk, error.toString());
      assertEquals(error.code().name(), arcp.code().name());
      assertEquals(error.retryable(), arcp.retryable(), error.code() + " retryable");
      assertEquals("dev.arcp.core.error." + simpleName(error), sdk.getClass().getName());
      assertEquals(error.getMessage(), sdk.getMessage());
      // The leasekit exception, with its details, stays reachable.
      assertSame(error, ArcpErrors.leasekitException(sdk).orElseThrow());
      assertEquals(error.details(), ArcpErrors.leasekitException(sdk).orElseThrow().details());
      assertEquals(List.of(error.getStackTrace()), List.of(sdk.getStackTrace()));
    }
  }

  private static String simpleName(LeaseException e) {
    return e.getClass().getSimpleName();
  }

  @Test
  void theSdkFixesItsCauseSoTheLeasekitErrorIsSuppressed() {
    PermissionDeniedException error = new PermissionDeniedException("denied");
    Exception sdk = ArcpErrors.standard().translate(error);
    assertEquals(null, sdk.getCause());
    assertSame(error, sdk.getSuppressed()[0]);
  }

  @Test
  void rethrowThrowsTheCheckedSdkExceptionUndeclared() {
    ArcpErrors errors = ArcpErrors.standard();
    dev.arcp.core.error.PermissionDeniedException thrown =
        assertThrows(
            dev.arcp.core.error.PermissionDeniedException.class,
            () -> errors.rethrow(new PermissionDeniedException("denied")));
    assertFalse(thrown.retryable());
    assertThrows(
        dev.arcp.core.error.LeaseExpiredException.class,
        () ->
            errors.call(
                () -> {
                  throw new LeaseExpiredException("expired");
                }));
    assertEquals("ok", errors.call(() -> "ok"));
  }

  @Test
  void aCodeWithoutAnSdkClassKeepsTheLeasekitException() {
    // The stand-ins reproduce only the classes leasekit raises; TIMEOUT has none here.
    TimeoutException timeout = new TimeoutException("slow");
    assertSame(timeout, ArcpErrors.standard().translate(timeout));
    assertTrue(ArcpErrors.standard().sdkType(ErrorCode.TIMEOUT).isEmpty());
  }

  @Test
  void withoutTheSdkEveryErrorStaysLeasekits() {
    ArcpErrors errors = SdkLoaders.absent();
    for (LeaseException error : LEASEKIT_ERRORS) {
      assertSame(error, errors.translate(error));
      assertTrue(errors.sdkType(error.code()).isEmpty());
      LeaseException thrown = assertThrows(LeaseException.class, () -> errors.rethrow(error));
      assertEquals(error.code(), thrown.code());
      assertEquals(error.code().retryable(), thrown.retryable());
    }
    assertFalse(new PermissionDeniedException("x").retryable());
    assertTrue(new InternalErrorException("x").retryable());
  }

  @Test
  void classesNamedLikeTheSdksButOfAnotherShapeAreNotUsed() throws Exception {
    ClassLoader wrong = SdkLoaders.wrongShape();
    // The classes do load under the SDK's names: the lookup refuses them by shape.
    for (String name : SdkLoaders.WRONG_SHAPE.keySet()) {
      if (!name.equals("LeaseSubsetViolationException")) {
        Class.forName("dev.arcp.core.error." + name, false, wrong);
      }
    }
    ArcpErrors errors = ArcpErrors.using(wrong);
    List<LeaseException> all = new java.util.ArrayList<>(LEASEKIT_ERRORS);
    all.add(new TimeoutException("slow"));
    for (LeaseException error : all) {
      assertSame(error, errors.translate(error), error.code() + " must fall back");
      assertThrows(error.getClass(), () -> errors.rethrow(error));
    }
  }

  @Test
  void theContextLoaderComesFirstThenLeasekitsOwn() {
    Thread thread = Thread.currentThread();
    ClassLoader saved = thread.getContextClassLoader();
    try {
      // A context loader without the SDK: leasekit's own loader (with the stand-ins) is used.
      thread.setContextClassLoader(SdkLoaders.withoutSdk());
      assertInstanceOf(
          dev.arcp.core.error.PermissionDeniedException.class,
          ArcpErrors.standard().translate(new PermissionDeniedException("x")));
      // A context loader with wrong-shape classes: skipped, leasekit's loader answers.
      thread.setContextClassLoader(SdkLoaders.wrongShape());
      assertInstanceOf(
          dev.arcp.core.error.BudgetExhaustedException.class,
          ArcpErrors.standard().translate(new BudgetExhaustedException("x")));
    } finally {
      thread.setContextClassLoader(saved);
    }
  }

  @Test
  void leasekitExceptionFindsNothingInAForeignException() {
    assertTrue(ArcpErrors.leasekitException(new IllegalStateException("x")).isEmpty());
    LeaseException inner = new InvalidRequestException("bad");
    assertSame(inner, ArcpErrors.leasekitException(new RuntimeException(inner)).orElseThrow());
  }

  @Test
  void everyCodeNamesTheSdkClass() {
    assertEquals(
        "dev.arcp.core.error.AgentVersionNotAvailableException",
        SdkExceptionTypes.className(ErrorCode.AGENT_VERSION_NOT_AVAILABLE));
    assertEquals(
        "dev.arcp.core.error.LeaseSubsetViolationException",
        SdkExceptionTypes.className(ErrorCode.LEASE_SUBSET_VIOLATION));
    for (ErrorCode code : ErrorCode.values()) {
      String name = SdkExceptionTypes.className(code);
      assertEquals(
          code.name(),
          name.substring("dev.arcp.core.error.".length(), name.length() - "Exception".length())
              .replaceAll("([a-z])([A-Z])", "$1_$2")
              .toUpperCase(java.util.Locale.ROOT));
    }
  }
}

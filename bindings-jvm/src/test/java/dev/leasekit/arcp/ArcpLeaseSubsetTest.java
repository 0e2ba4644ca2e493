package dev.leasekit.arcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.arcp.core.error.LeaseSubsetViolationException;
import dev.leasekit.ErrorCode;
import dev.leasekit.Lease;
import dev.leasekit.LeaseException;
import dev.leasekit.LeaseSubset;
import java.math.BigDecimal;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * {@link ArcpLeaseSubset}: the SDK's argument order and its stricter rules on top of leasekit's
 * subset. "The SDK" here is the test stand-ins of {@code dev.arcp.core.error} (the SDK is not
 * published to a Maven repository).
 */
class ArcpLeaseSubsetTest {
  static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

  static Lease parent() {
    return Lease.builder().allow("fs.read", "/data/**").budget("USD", new BigDecimal("5")).build();
  }

  static LeaseException leasekit(Exception e) {
    return ArcpErrors.leasekitException(e).orElseThrow();
  }

  @Test
  void aSubsetPassesWithTheParentFirst() {
    Lease child =
        Lease.builder().allow("fs.read", "/data/a/*").budget("USD", new BigDecimal("5")).build();
    ArcpLeaseSubset.validate(parent(), T0, child, T0);
    ArcpLeaseSubset.validate(parent(), null, child, null);
    ArcpLeaseSubset.validate(parent(), null, child, T0);
    // In the SDK's order the arguments are not interchangeable.
    Lease wider =
        Lease.builder().allow("fs.read", "/**").budget("USD", new BigDecimal("9")).build();
    ArcpLeaseSubset.validate(wider, null, child, null);
    assertThrows(
        LeaseSubsetViolationException.class,
        () -> ArcpLeaseSubset.validate(child, null, wider, null));
  }

  @Test
  void aWiderPatternIsAViolationWithAWitness() {
    Lease child = Lease.builder().allow("fs.read", "/etc/**").build();
    LeaseSubsetViolationException e =
        assertThrows(
            LeaseSubsetViolationException.class,
            () -> ArcpLeaseSubset.validate(parent(), null, child, null));
    assertFalse(e.retryable());
    assertEquals("fs.read", leasekit(e).details().get("capability"));
    assertEquals(ErrorCode.LEASE_SUBSET_VIOLATION, leasekit(e).code());
  }

  @Test
  void aBoundedParentNeedsAChildExpiry() {
    Lease child = Lease.builder().allow("fs.read", "/data/x").build();
    // leasekit's own subset lets the child inherit the parent's expiry ...
    LeaseSubset.validate(child, parent().withConstraints(dev.leasekit.LeaseConstraints.of(T0)));
    // ... an SDK runtime does not, so the SDK's rule applies.
    LeaseSubsetViolationException e =
        assertThrows(
            LeaseSubsetViolationException.class,
            () -> ArcpLeaseSubset.validate(parent(), T0, child, null));
    assertEquals("expires_at", leasekit(e).details().get("capability"));
    assertThrows(
        LeaseSubsetViolationException.class,
        () -> ArcpLeaseSubset.validate(parent(), T0, child, T0.plusNanos(1_000_000)));
  }

  @Test
  void theGivenExpiriesReplaceTheLeasesOwn() {
    Lease child =
        Lease.builder().allow("fs.read", "/data/x").expiresAt(T0.plusSeconds(3600)).build();
    ArcpLeaseSubset.validate(parent(), T0, child, T0);
  }

  @Test
  void aCurrencyTheParentDoesNotBudgetIsAViolation() {
    Lease child = Lease.builder().budget("EUR", new BigDecimal("1")).build();
    LeaseSubsetViolationException e =
        assertThrows(
            LeaseSubsetViolationException.class,
            () -> ArcpLeaseSubset.validate(parent(), null, child, null));
    assertEquals("EUR", leasekit(e).details().get("currency"));
    Lease more = Lease.builder().budget("USD", new BigDecimal("5.000000001")).build();
    assertThrows(
        LeaseSubsetViolationException.class,
        () -> ArcpLeaseSubset.validate(parent(), null, more, null));
  }

  @Test
  void evenAZeroAmountOfACurrencyTheParentDoesNotBudgetIsAViolation() {
    // The SDK refuses a currency the parent does not grant whatever the amount.
    Lease zero = Lease.builder().budget("EUR", BigDecimal.ZERO).build();
    LeaseSubsetViolationException e =
        assertThrows(
            LeaseSubsetViolationException.class,
            () -> ArcpLeaseSubset.validate(parent(), null, zero, null));
    assertEquals("EUR", leasekit(e).details().get("currency"));
    // A zero amount of a currency the parent budgets is within it, even at zero.
    ArcpLeaseSubset.validate(
        parent(), null, Lease.builder().budget("USD", BigDecimal.ZERO).build(), null);
    Lease parentAtZero = Lease.builder().budget("USD", BigDecimal.ZERO).build();
    ArcpLeaseSubset.validate(
        parentAtZero, null, Lease.builder().budget("USD", BigDecimal.ZERO).build(), null);
    assertThrows(
        LeaseSubsetViolationException.class,
        () ->
            ArcpLeaseSubset.validate(
                parentAtZero,
                null,
                Lease.builder().budget("USD", new BigDecimal("0.1")).build(),
                null));
  }

  @Test
  void theBudgetIsCheckedBeforeTheExpiryAsTheSdkDoes() {
    // Over the parent on both: the SDK checks the capabilities (cost.budget among them) first
    // and the expiry last.
    Lease child = Lease.builder().allow("fs.read", "/data/x").budget("EUR", BigDecimal.ONE).build();
    LeaseSubsetViolationException later =
        assertThrows(
            LeaseSubsetViolationException.class,
            () -> ArcpLeaseSubset.validate(parent(), T0, child, T0.plusSeconds(3600)));
    assertEquals("cost.budget", leasekit(later).details().get("capability"));
    LeaseSubsetViolationException missing =
        assertThrows(
            LeaseSubsetViolationException.class,
            () -> ArcpLeaseSubset.validate(parent(), T0, child, null));
    assertEquals("cost.budget", leasekit(missing).details().get("capability"));
    // A pattern violation comes before both.
    Lease wider = Lease.builder().allow("fs.read", "/etc/x").budget("EUR", BigDecimal.ONE).build();
    LeaseSubsetViolationException pattern =
        assertThrows(
            LeaseSubsetViolationException.class,
            () -> ArcpLeaseSubset.validate(parent(), T0, wider, T0.plusSeconds(3600)));
    assertEquals("fs.read", leasekit(pattern).details().get("capability"));
  }

  @Test
  void withoutTheSdkLeasekitsExceptionIsThrown() {
    Lease child = Lease.builder().allow("fs.read", "/data/x").build();
    dev.leasekit.LeaseSubsetViolationException e =
        assertThrows(
            dev.leasekit.LeaseSubsetViolationException.class,
            () -> ArcpLeaseSubset.validate(parent(), T0, child, null, SdkLoaders.absent()));
    assertEquals(ErrorCode.LEASE_SUBSET_VIOLATION, e.code());
    assertFalse(e.retryable());
  }
}

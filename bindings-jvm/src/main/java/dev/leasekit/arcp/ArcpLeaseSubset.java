package dev.leasekit.arcp;

import dev.leasekit.Lease;
import dev.leasekit.LeaseConstraints;
import dev.leasekit.LeaseException;
import dev.leasekit.LeaseSubset;
import dev.leasekit.SubsetOptions;
import java.time.Instant;
import java.util.Objects;

/**
 * The delegation subset check shaped like the ARCP Java SDK's {@code
 * dev.arcp.core.lease.LeaseSubset.validate(parent, parentExpiresAt, child, childExpiresAt)} (parent
 * first), throwing the SDK's {@code LeaseSubsetViolationException} when the SDK is on the class
 * path (see {@link ArcpErrors}).
 *
 * <p>The answer is leasekit's {@link LeaseSubset} (exact pattern-language inclusion, exact budgets
 * against the parent's full budget, the expiries given here replacing the leases' own), with the
 * SDK's two rules where leasekit's own answer is looser ({@link SubsetOptions}, applied by the
 * core):
 *
 * <ul>
 *   <li>under a parent with an expiry, a child without one is a violation (leasekit's {@link
 *       dev.leasekit.LeaseGuard#delegate} lets the child inherit the parent's expiry; an SDK
 *       runtime applies no inheritance, so the child would outlive the parent);
 *   <li>a child budget in a currency the parent does not budget is a violation, whatever its
 *       amount, zero included (leasekit reads such a currency as unlimited in the parent).
 * </ul>
 *
 * <p>Violations are reported in the SDK's order: capabilities (patterns, then the budget) before
 * the expiry.
 */
public final class ArcpLeaseSubset {
  /** The SDK's two stricter rules, applied by the core. */
  private static final SubsetOptions SDK_RULES =
      SubsetOptions.defaults().requireChildExpiry(true).requireParentCurrency(true);

  private ArcpLeaseSubset() {}

  /**
   * Checks that {@code child} is a subset of {@code parent}, with {@link ArcpErrors#standard()}
   * errors.
   *
   * @param parent the delegating lease
   * @param parentExpiresAt the parent's expiry, or {@code null} when it has none
   * @param child the delegated lease
   * @param childExpiresAt the child's expiry, or {@code null} when it has none
   * @throws RuntimeException never declared: {@code LEASE_SUBSET_VIOLATION} (the SDK's checked
   *     {@code LeaseSubsetViolationException} when present) with leasekit's details (capability,
   *     pattern, witness), or {@code INVALID_REQUEST} for an expiry outside years 0000-9999
   */
  public static void validate(
      Lease parent, Instant parentExpiresAt, Lease child, Instant childExpiresAt) {
    validate(parent, parentExpiresAt, child, childExpiresAt, ArcpErrors.standard());
  }

  /**
   * As {@link #validate(Lease, Instant, Lease, Instant)}, throwing the exceptions {@code errors}
   * finds.
   *
   * @param parent the delegating lease
   * @param parentExpiresAt the parent's expiry, or {@code null}
   * @param child the delegated lease
   * @param childExpiresAt the child's expiry, or {@code null}
   * @param errors where to find the SDK's exceptions
   */
  public static void validate(
      Lease parent,
      Instant parentExpiresAt,
      Lease child,
      Instant childExpiresAt,
      ArcpErrors errors) {
    Objects.requireNonNull(parent, "parent");
    Objects.requireNonNull(child, "child");
    Objects.requireNonNull(errors, "errors");
    try {
      Lease p = parent.withConstraints(constraints(parentExpiresAt));
      Lease c = child.withConstraints(constraints(childExpiresAt));
      LeaseSubset.validate(c, p, null, SDK_RULES);
    } catch (LeaseException e) {
      throw errors.rethrow(e);
    }
  }

  private static LeaseConstraints constraints(Instant expiresAt) {
    return expiresAt == null ? LeaseConstraints.none() : LeaseConstraints.of(expiresAt);
  }
}

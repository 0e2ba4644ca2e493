package dev.leasekit.arcp;

import dev.leasekit.ErrorCode;
import dev.leasekit.Lease;
import dev.leasekit.LeaseConstraints;
import dev.leasekit.LeaseException;
import dev.leasekit.LeaseGuard;
import dev.leasekit.PermissionDeniedException;
import java.time.Clock;
import java.util.Objects;

/**
 * A lease guard shaped like the ARCP Java SDK's {@code dev.arcp.runtime.lease.LeaseGuard} (the
 * constructor {@code (lease, constraints, clock)}, {@code authorize(namespace, target)}, {@code
 * authorizeModel(modelId)}), backed by leasekit's {@link LeaseGuard}, and throwing the SDK's
 * exceptions when the SDK is on the class path (see {@link ArcpErrors}); leasekit's otherwise.
 *
 * <p>Checks run in the SDK's order, expiry first, and stay as strict as leasekit: the target is
 * canonicalized before matching ({@code /data/../etc/passwd} is {@code /etc/passwd}, denied under
 * {@code /data/**}, which the SDK grants), patterns follow leasekit's language, and the budget is
 * checked by every call (the SDK's guard never checks it; its {@code JobContext.authorize} does,
 * after the patterns). The methods return the canonical target, on which the caller must operate
 * (the SDK's return nothing; a call that ignores the result compiles unchanged).
 *
 * <p>Errors are the codes the SDK's signatures allow: {@code LEASE_EXPIRED}, {@code
 * BUDGET_EXHAUSTED} and {@code PERMISSION_DENIED} ({@code INTERNAL_ERROR} for a failure inside
 * leasekit). A target or capability leasekit refuses as malformed ({@code INVALID_REQUEST}, for
 * example a relative {@code fs.*} path) is a {@code PERMISSION_DENIED} whose leasekit exception has
 * the {@code InvalidRequestException} as its cause: the SDK's job runner reports every exception
 * other than those three types as a retryable {@code INTERNAL_ERROR}, and a client must not retry a
 * refused operation.
 *
 * <p>Thread-safe, like {@link LeaseGuard}. {@link #close()} ends the underlying guard.
 */
public final class ArcpLeaseGuard implements AutoCloseable {
  private final LeaseGuard guard;
  private final ArcpErrors errors;

  /**
   * The SDK's constructor: a guard over a lease and its constraints on a clock, with {@link
   * ArcpErrors#standard()} errors.
   *
   * @param lease the lease (its own constraints are replaced by {@code constraints})
   * @param constraints the constraints ({@code expires_at})
   * @param clock the clock read on every call
   */
  public ArcpLeaseGuard(Lease lease, LeaseConstraints constraints, Clock clock) {
    this(build(lease, constraints, clock, ArcpErrors.standard()), ArcpErrors.standard());
  }

  /**
   * Wraps an existing leasekit guard (a child from {@link LeaseGuard#delegate}, for example).
   *
   * @param guard the leasekit guard; closing this object closes it
   * @param errors where to find the SDK's exceptions
   */
  public ArcpLeaseGuard(LeaseGuard guard, ArcpErrors errors) {
    this.guard = Objects.requireNonNull(guard, "guard");
    this.errors = Objects.requireNonNull(errors, "errors");
  }

  private static LeaseGuard build(
      Lease lease, LeaseConstraints constraints, Clock clock, ArcpErrors errors) {
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(constraints, "constraints");
    Objects.requireNonNull(clock, "clock");
    return errors.call(
        () -> LeaseGuard.builder(lease).constraints(constraints).clock(clock).build());
  }

  /**
   * Authorizes an operation, like the SDK's {@code authorize(namespace, pattern)} (its second
   * argument is the target, not a pattern).
   *
   * @param namespace the capability, e.g. {@code "fs.read"}
   * @param target the path, URL, tool, agent or model
   * @return the canonical target; operate on exactly this value
   * @throws RuntimeException never declared: the SDK's (checked) {@code LeaseExpiredException},
   *     {@code BudgetExhaustedException} or {@code PermissionDeniedException} when the SDK is
   *     present, leasekit's exceptions of the same codes otherwise
   */
  public String authorize(String namespace, String target) {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(target, "target");
    try {
      return guard.authorize(namespace, target);
    } catch (LeaseException e) {
      throw errors.rethrow(asSdkDenial(e));
    }
  }

  /**
   * Authorizes the use of a model ({@code model.use}), like the SDK's {@code authorizeModel}.
   *
   * @param modelId the model id
   * @return the model id as authorized
   * @throws RuntimeException never declared: as {@link #authorize}
   */
  public String authorizeModel(String modelId) {
    Objects.requireNonNull(modelId, "modelId");
    try {
      return guard.authorizeModel(modelId);
    } catch (LeaseException e) {
      throw errors.rethrow(asSdkDenial(e));
    }
  }

  /**
   * The budget counters of this guard, shaped like the SDK's {@code BudgetCounters}.
   *
   * @return a view that reads and spends this guard's counters
   */
  public ArcpBudgetCounters budget() {
    return new ArcpBudgetCounters(guard, errors);
  }

  /**
   * The lease (canonical patterns, with the guard's constraints).
   *
   * @return the lease
   */
  public Lease lease() {
    return guard.lease();
  }

  /**
   * The constraints the guard enforces.
   *
   * @return the constraints
   */
  public LeaseConstraints constraints() {
    return guard.lease().constraints();
  }

  /**
   * The leasekit guard behind this one (delegation, reservations, metrics).
   *
   * @return the guard
   */
  public LeaseGuard guard() {
    return guard;
  }

  /** Closes the leasekit guard; later calls fail with {@code LEASE_EXPIRED}. Idempotent. */
  @Override
  public void close() {
    guard.close();
  }

  /**
   * A malformed target or capability ({@code INVALID_REQUEST}) as the SDK answers it: a denial (not
   * retryable), with leasekit's error as the cause.
   */
  static LeaseException asSdkDenial(LeaseException e) {
    if (e.code() != ErrorCode.INVALID_REQUEST) {
      return e;
    }
    PermissionDeniedException denial =
        new PermissionDeniedException("not permitted: " + e.getMessage(), e.details());
    denial.initCause(e);
    return denial;
  }
}

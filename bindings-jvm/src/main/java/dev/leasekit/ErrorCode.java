package dev.leasekit;

import java.util.Optional;

/**
 * The stable ARCP v1.1 error codes (section 12). The names are the wire strings, identical in every
 * leasekit language; {@link #retryable()} is fixed per code.
 */
public enum ErrorCode {
  // BEGIN generated (scripts/gen-error-tables.py)
  /** The lease does not grant the capability for the target. */
  PERMISSION_DENIED(false),
  /**
   * A delegated lease is not a subset of its parent; {@link LeaseException#details()} names the
   * capability, the child pattern and a witness.
   */
  LEASE_SUBSET_VIOLATION(false),
  /** The operation happened at or after the lease's {@code expires_at}. */
  LEASE_EXPIRED(false),
  /** A budget counter is spent (at or below zero), or a reservation does not fit. */
  BUDGET_EXHAUSTED(false),
  /** The input is malformed: a bad lease, pattern, target, amount or timestamp. */
  INVALID_REQUEST(false),
  /** The caller is not authenticated (ARCP code, not raised by leasekit itself). */
  UNAUTHENTICATED(false),
  /** The job does not exist (ARCP code, not raised by leasekit itself). */
  JOB_NOT_FOUND(false),
  /** An idempotency key was reused (ARCP code, not raised by leasekit itself). */
  DUPLICATE_KEY(false),
  /** The agent is not available (ARCP code, not raised by leasekit itself). */
  AGENT_NOT_AVAILABLE(false),
  /** The agent version is not available (ARCP code, not raised by leasekit itself). */
  AGENT_VERSION_NOT_AVAILABLE(false),
  /** The job was cancelled (ARCP code, not raised by leasekit itself). */
  CANCELLED(false),
  /** The operation timed out (ARCP code, retryable). */
  TIMEOUT(true),
  /** The resume window has passed (ARCP code, not raised by leasekit itself). */
  RESUME_WINDOW_EXPIRED(false),
  /** The peer's heartbeat was lost (ARCP code, retryable). */
  HEARTBEAT_LOST(true),
  /** An unexpected failure inside leasekit, including a Rust panic (retryable). */
  INTERNAL_ERROR(true);
  // END generated

  private final boolean retryable;

  ErrorCode(boolean retryable) {
    this.retryable = retryable;
  }

  /**
   * Whether a caller may retry the failed operation unchanged.
   *
   * @return {@code true} for {@code TIMEOUT}, {@code HEARTBEAT_LOST} and {@code INTERNAL_ERROR}
   */
  public boolean retryable() {
    return retryable;
  }

  /**
   * The code named by a wire string.
   *
   * @param code a wire string such as {@code "PERMISSION_DENIED"}
   * @return the code, or empty when the string names no code
   */
  public static Optional<ErrorCode> parse(String code) {
    for (ErrorCode c : values()) {
      if (c.name().equals(code)) {
        return Optional.of(c);
      }
    }
    return Optional.empty();
  }
}

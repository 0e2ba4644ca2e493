package dev.leasekit;

import java.util.Map;

/** {@code LEASE_EXPIRED}: The operation happened at or after the lease's {@code expires_at}. */
public final class LeaseExpiredException extends LeaseException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception without details.
   *
   * @param message a human-readable message (never compared by tests or callers)
   */
  public LeaseExpiredException(String message) {
    this(message, Map.of());
  }

  /**
   * Creates the exception.
   *
   * @param message a human-readable message
   * @param details structured details (copied)
   */
  public LeaseExpiredException(String message, Map<String, ?> details) {
    super(ErrorCode.LEASE_EXPIRED, message, details);
  }
}

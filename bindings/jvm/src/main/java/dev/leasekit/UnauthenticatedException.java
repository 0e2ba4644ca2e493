package dev.leasekit;

import java.util.Map;

/**
 * {@code UNAUTHENTICATED}: The caller is not authenticated (ARCP code, not raised by leasekit
 * itself).
 */
public final class UnauthenticatedException extends LeaseException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception without details.
   *
   * @param message a human-readable message (never compared by tests or callers)
   */
  public UnauthenticatedException(String message) {
    this(message, Map.of());
  }

  /**
   * Creates the exception.
   *
   * @param message a human-readable message
   * @param details structured details (copied)
   */
  public UnauthenticatedException(String message, Map<String, ?> details) {
    super(ErrorCode.UNAUTHENTICATED, message, details);
  }
}

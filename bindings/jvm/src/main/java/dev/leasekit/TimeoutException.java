package dev.leasekit;

import java.util.Map;

/** {@code TIMEOUT}: The operation timed out (ARCP code, retryable). */
public final class TimeoutException extends LeaseException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception without details.
   *
   * @param message a human-readable message (never compared by tests or callers)
   */
  public TimeoutException(String message) {
    this(message, Map.of());
  }

  /**
   * Creates the exception.
   *
   * @param message a human-readable message
   * @param details structured details (copied)
   */
  public TimeoutException(String message, Map<String, ?> details) {
    super(ErrorCode.TIMEOUT, message, details);
  }
}

package dev.leasekit;

import java.util.Map;

/**
 * {@code INTERNAL_ERROR}: An unexpected failure inside leasekit, including a Rust panic
 * (retryable).
 */
public final class InternalErrorException extends LeaseException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception without details.
   *
   * @param message a human-readable message (never compared by tests or callers)
   */
  public InternalErrorException(String message) {
    this(message, Map.of());
  }

  /**
   * Creates the exception.
   *
   * @param message a human-readable message
   * @param details structured details (copied)
   */
  public InternalErrorException(String message, Map<String, ?> details) {
    super(ErrorCode.INTERNAL_ERROR, message, details);
  }
}

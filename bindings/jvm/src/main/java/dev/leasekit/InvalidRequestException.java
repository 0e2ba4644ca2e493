package dev.leasekit;

import java.util.Map;

/**
 * {@code INVALID_REQUEST}: The input is malformed: a bad lease, pattern, target, amount or
 * timestamp.
 */
public final class InvalidRequestException extends LeaseException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception without details.
   *
   * @param message a human-readable message (never compared by tests or callers)
   */
  public InvalidRequestException(String message) {
    this(message, Map.of());
  }

  /**
   * Creates the exception.
   *
   * @param message a human-readable message
   * @param details structured details (copied)
   */
  public InvalidRequestException(String message, Map<String, ?> details) {
    super(ErrorCode.INVALID_REQUEST, message, details);
  }
}

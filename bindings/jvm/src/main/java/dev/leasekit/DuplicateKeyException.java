package dev.leasekit;

import java.util.Map;

/**
 * {@code DUPLICATE_KEY}: An idempotency key was reused (ARCP code, not raised by leasekit itself).
 */
public final class DuplicateKeyException extends LeaseException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception without details.
   *
   * @param message a human-readable message (never compared by tests or callers)
   */
  public DuplicateKeyException(String message) {
    this(message, Map.of());
  }

  /**
   * Creates the exception.
   *
   * @param message a human-readable message
   * @param details structured details (copied)
   */
  public DuplicateKeyException(String message, Map<String, ?> details) {
    super(ErrorCode.DUPLICATE_KEY, message, details);
  }
}

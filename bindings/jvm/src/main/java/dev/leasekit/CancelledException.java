package dev.leasekit;

import java.util.Map;

/** {@code CANCELLED}: The job was cancelled (ARCP code, not raised by leasekit itself). */
public final class CancelledException extends LeaseException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception without details.
   *
   * @param message a human-readable message (never compared by tests or callers)
   */
  public CancelledException(String message) {
    this(message, Map.of());
  }

  /**
   * Creates the exception.
   *
   * @param message a human-readable message
   * @param details structured details (copied)
   */
  public CancelledException(String message, Map<String, ?> details) {
    super(ErrorCode.CANCELLED, message, details);
  }
}

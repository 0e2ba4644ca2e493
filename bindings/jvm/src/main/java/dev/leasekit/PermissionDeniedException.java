package dev.leasekit;

import java.util.Map;

/** {@code PERMISSION_DENIED}: The lease does not grant the capability for the target. */
public final class PermissionDeniedException extends LeaseException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception without details.
   *
   * @param message a human-readable message (never compared by tests or callers)
   */
  public PermissionDeniedException(String message) {
    this(message, Map.of());
  }

  /**
   * Creates the exception.
   *
   * @param message a human-readable message
   * @param details structured details (copied)
   */
  public PermissionDeniedException(String message, Map<String, ?> details) {
    super(ErrorCode.PERMISSION_DENIED, message, details);
  }
}

package dev.leasekit;

import java.util.Map;

/**
 * {@code RESUME_WINDOW_EXPIRED}: The resume window has passed (ARCP code, not raised by leasekit
 * itself).
 */
public final class ResumeWindowExpiredException extends LeaseException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception without details.
   *
   * @param message a human-readable message (never compared by tests or callers)
   */
  public ResumeWindowExpiredException(String message) {
    this(message, Map.of());
  }

  /**
   * Creates the exception.
   *
   * @param message a human-readable message
   * @param details structured details (copied)
   */
  public ResumeWindowExpiredException(String message, Map<String, ?> details) {
    super(ErrorCode.RESUME_WINDOW_EXPIRED, message, details);
  }
}

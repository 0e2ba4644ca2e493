package dev.leasekit;

import java.util.Map;

/** {@code JOB_NOT_FOUND}: The job does not exist (ARCP code, not raised by leasekit itself). */
public final class JobNotFoundException extends LeaseException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception without details.
   *
   * @param message a human-readable message (never compared by tests or callers)
   */
  public JobNotFoundException(String message) {
    this(message, Map.of());
  }

  /**
   * Creates the exception.
   *
   * @param message a human-readable message
   * @param details structured details (copied)
   */
  public JobNotFoundException(String message, Map<String, ?> details) {
    super(ErrorCode.JOB_NOT_FOUND, message, details);
  }
}

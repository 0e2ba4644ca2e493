package dev.leasekit;

import java.util.Map;

/** {@code HEARTBEAT_LOST}: The peer's heartbeat was lost (ARCP code, retryable). */
public final class HeartbeatLostException extends LeaseException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception without details.
   *
   * @param message a human-readable message (never compared by tests or callers)
   */
  public HeartbeatLostException(String message) {
    this(message, Map.of());
  }

  /**
   * Creates the exception.
   *
   * @param message a human-readable message
   * @param details structured details (copied)
   */
  public HeartbeatLostException(String message, Map<String, ?> details) {
    super(ErrorCode.HEARTBEAT_LOST, message, details);
  }
}

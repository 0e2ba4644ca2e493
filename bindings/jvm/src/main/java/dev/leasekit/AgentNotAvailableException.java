package dev.leasekit;

import java.util.Map;

/**
 * {@code AGENT_NOT_AVAILABLE}: The agent is not available (ARCP code, not raised by leasekit
 * itself).
 */
public final class AgentNotAvailableException extends LeaseException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception without details.
   *
   * @param message a human-readable message (never compared by tests or callers)
   */
  public AgentNotAvailableException(String message) {
    this(message, Map.of());
  }

  /**
   * Creates the exception.
   *
   * @param message a human-readable message
   * @param details structured details (copied)
   */
  public AgentNotAvailableException(String message, Map<String, ?> details) {
    super(ErrorCode.AGENT_NOT_AVAILABLE, message, details);
  }
}

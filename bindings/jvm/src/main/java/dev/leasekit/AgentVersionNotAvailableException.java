package dev.leasekit;

import java.util.Map;

/**
 * {@code AGENT_VERSION_NOT_AVAILABLE}: The agent version is not available (ARCP code, not raised by
 * leasekit itself).
 */
public final class AgentVersionNotAvailableException extends LeaseException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception without details.
   *
   * @param message a human-readable message (never compared by tests or callers)
   */
  public AgentVersionNotAvailableException(String message) {
    this(message, Map.of());
  }

  /**
   * Creates the exception.
   *
   * @param message a human-readable message
   * @param details structured details (copied)
   */
  public AgentVersionNotAvailableException(String message, Map<String, ?> details) {
    super(ErrorCode.AGENT_VERSION_NOT_AVAILABLE, message, details);
  }
}

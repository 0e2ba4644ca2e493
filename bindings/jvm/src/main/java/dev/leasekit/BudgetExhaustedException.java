package dev.leasekit;

import java.util.Map;

/**
 * {@code BUDGET_EXHAUSTED}: A budget counter is spent (at or below zero), or a reservation does not
 * fit.
 */
public final class BudgetExhaustedException extends LeaseException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception without details.
   *
   * @param message a human-readable message (never compared by tests or callers)
   */
  public BudgetExhaustedException(String message) {
    this(message, Map.of());
  }

  /**
   * Creates the exception.
   *
   * @param message a human-readable message
   * @param details structured details (copied)
   */
  public BudgetExhaustedException(String message, Map<String, ?> details) {
    super(ErrorCode.BUDGET_EXHAUSTED, message, details);
  }
}

package dev.leasekit;

import java.math.BigDecimal;
import java.util.Objects;

/**
 * A metric emitted by a guard, such as {@code {"name": "cost.budget.remaining", "value": 7.5,
 * "unit": "USD"}} when spending crosses a further 5 % of a budget.
 *
 * @param name the metric name
 * @param value the exact value
 * @param unit the unit (the currency for budget metrics)
 */
public record Metric(String name, BigDecimal value, String unit) {
  /**
   * Validates that no component is null.
   *
   * @param name the metric name
   * @param value the exact value
   * @param unit the unit
   */
  public Metric {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(value, "value");
    Objects.requireNonNull(unit, "unit");
  }
}

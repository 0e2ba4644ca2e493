package dev.leasekit;

import java.math.BigDecimal;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The exact-decimal {@code cost.budget} counters of a {@link LeaseGuard} ({@link
 * LeaseGuard#budget()}), plus the budget helpers ({@link #parseEntry}, {@link #sum}).
 *
 * <p>Amounts are {@link BigDecimal}s end to end and cross to the Rust core as strings, never binary
 * floating point. Updates are atomic in the core: concurrent spenders never lose an update.
 *
 * <pre>{@code
 * BudgetCounters budget = guard.budget();
 * budget.reserve("USD", new BigDecimal("2.00"));          // BudgetExhaustedException if it does not fit
 * budget.spend("cost.llm", new BigDecimal("0.30"), "USD"); // post-hoc spend, always recorded
 * BigDecimal left = budget.remaining("USD").orElseThrow();
 * }</pre>
 */
public final class BudgetCounters {
  private final LeaseGuard guard;

  BudgetCounters(LeaseGuard guard) {
    this.guard = guard;
  }

  /**
   * Spends from the counter of {@code currency} by recording a {@code cost.*} metric.
   *
   * @param metricName a metric name starting with {@code cost.} (not {@code cost.budget.})
   * @param amount the non-negative amount spent
   * @param currency the metric unit; unbudgeted currencies are ignored
   * @return the {@code cost.budget.remaining} metrics this spend emitted
   */
  public List<Metric> spend(String metricName, BigDecimal amount, String currency) {
    return guard.recordMetric(metricName, amount, currency);
  }

  /**
   * Reserves an amount if the counter stays at or above zero (see {@link LeaseGuard#reserve}).
   *
   * @param currency a budgeted currency
   * @param amount the amount
   * @return the emitted metrics
   */
  public List<Metric> reserve(String currency, BigDecimal amount) {
    return guard.reserve(currency, amount);
  }

  /**
   * All remaining amounts.
   *
   * @return an unmodifiable, sorted map of currency to remaining amount
   */
  public Map<String, BigDecimal> remaining() {
    return guard.remaining();
  }

  /**
   * The remaining amount of one currency.
   *
   * @param currency the currency
   * @return the remaining amount, or empty when the currency is not budgeted
   */
  public Optional<BigDecimal> remaining(String currency) {
    return Optional.ofNullable(guard.remaining().get(currency));
  }

  /**
   * Whether some counter is at or below zero (then {@code authorize} fails with {@code
   * BUDGET_EXHAUSTED}). The core decides (its {@code LeaseGuard::is_exhausted}).
   *
   * @return {@code true} if any budget is spent
   */
  public boolean isExhausted() {
    return guard.isExhausted();
  }

  /**
   * Parses one {@code cost.budget} entry, {@code CURRENCY:AMOUNT}.
   *
   * @param entry e.g. {@code "USD:2.50"}
   * @return the currency and the exact amount
   * @throws InvalidRequestException if the entry is malformed
   */
  public static BudgetEntry parseEntry(String entry) {
    Objects.requireNonNull(entry, "entry");
    var node = Json.parse(Native.parseBudgetAmountJson(entry));
    return new BudgetEntry(node.path("currency").asText(), Json.decimal(node.path("amount")));
  }

  /**
   * Parses an amount with the strict ARCP AMOUNT syntax ({@code [0-9]+(\.[0-9]+)?}, at most 15
   * integer and 9 fraction digits; no sign, exponent, NaN or infinity).
   *
   * @param text e.g. {@code "2.50"}
   * @return the exact amount
   * @throws InvalidRequestException if the text is not an AMOUNT
   */
  public static BigDecimal parseAmount(String text) {
    Objects.requireNonNull(text, "text");
    return new BigDecimal(Native.parseAmountText(text));
  }

  /**
   * Sums entries per currency.
   *
   * @param entries {@code cost.budget} entries
   * @return an unmodifiable, sorted map of currency to total
   * @throws InvalidRequestException if an entry is malformed or a sum is too large
   */
  public static Map<String, BigDecimal> sum(Collection<String> entries) {
    Objects.requireNonNull(entries, "entries");
    return Json.amounts(Native.sumBudgetEntriesJson(Json.write(entries)));
  }

  /**
   * One parsed {@code cost.budget} entry.
   *
   * @param currency the currency code (case-sensitive)
   * @param amount the exact amount
   */
  public record BudgetEntry(String currency, BigDecimal amount) {
    /**
     * Validates that no component is null.
     *
     * @param currency the currency code
     * @param amount the amount
     */
    public BudgetEntry {
      Objects.requireNonNull(currency, "currency");
      Objects.requireNonNull(amount, "amount");
    }
  }
}

package dev.leasekit.arcp;

import dev.leasekit.BudgetCounters;
import dev.leasekit.BudgetExhaustedException;
import dev.leasekit.InvalidRequestException;
import dev.leasekit.Lease;
import dev.leasekit.LeaseException;
import dev.leasekit.LeaseGuard;
import java.math.BigDecimal;
import java.util.Map;
import java.util.Objects;

/**
 * Budget counters shaped like the ARCP Java SDK's {@code dev.arcp.runtime.lease.BudgetCounters}
 * ({@code tracks}, {@code remaining}, {@code snapshot}, {@code decrement}, {@code
 * ensureAllPositive}), over leasekit's exact counters ({@link BudgetCounters}), throwing the SDK's
 * exceptions when the SDK is on the class path (see {@link ArcpErrors}).
 *
 * <p>Amounts are exact decimals with leasekit's bounds (at most 15 integer and 9 fraction digits,
 * currencies of up to 32 characters of {@code [A-Za-z0-9_-]}); a value outside them is {@code
 * INVALID_REQUEST}, where the SDK accepts any {@link BigDecimal}. As in the SDK, a negative {@link
 * #decrement} and a decrement of an untracked currency change nothing, and the counters may go
 * below zero. Updates are atomic: concurrent decrements never lose one.
 */
public final class ArcpBudgetCounters {
  /** The metric name under which {@link #decrement} spends (any {@code cost.*} name spends). */
  private static final String SPEND_METRIC = "cost.spend";

  private final LeaseGuard guard;
  private final ArcpErrors errors;

  /**
   * The SDK's constructor: counters starting at {@code initial}, with {@link ArcpErrors#standard()}
   * errors.
   *
   * @param initial the starting amount per currency (non-negative, exact)
   * @throws RuntimeException never declared: {@code INVALID_REQUEST} (the SDK's exception when
   *     present) for a malformed currency or amount
   */
  public ArcpBudgetCounters(Map<String, BigDecimal> initial) {
    this(initial, ArcpErrors.standard());
  }

  /**
   * Counters starting at {@code initial}, throwing the exceptions {@code errors} finds.
   *
   * @param initial the starting amount per currency (non-negative, exact)
   * @param errors where to find the SDK's exceptions
   */
  public ArcpBudgetCounters(Map<String, BigDecimal> initial, ArcpErrors errors) {
    this(countersOnly(initial, errors), errors);
  }

  /**
   * A view of the counters of a leasekit guard.
   *
   * @param guard the guard whose counters are read and spent
   * @param errors where to find the SDK's exceptions
   */
  public ArcpBudgetCounters(LeaseGuard guard, ArcpErrors errors) {
    this.guard = Objects.requireNonNull(guard, "guard");
    this.errors = Objects.requireNonNull(errors, "errors");
  }

  /** A guard whose lease holds only the budget: its counters are the counters. */
  private static LeaseGuard countersOnly(Map<String, BigDecimal> initial, ArcpErrors errors) {
    Objects.requireNonNull(initial, "initial");
    Objects.requireNonNull(errors, "errors");
    return errors.call(
        () -> {
          Lease.Builder lease = Lease.builder();
          for (Map.Entry<String, BigDecimal> e : initial.entrySet()) {
            lease.budget(e.getKey(), exact(e.getValue()));
          }
          return LeaseGuard.of(lease.build());
        });
  }

  /**
   * Whether {@code currency} has a counter.
   *
   * @param currency the currency, e.g. {@code "USD"}
   * @return {@code true} if the budget names it
   */
  public boolean tracks(String currency) {
    Objects.requireNonNull(currency, "currency");
    return snapshot().containsKey(currency);
  }

  /**
   * The remaining amount of a currency; zero when it is not tracked (as in the SDK).
   *
   * @param currency the currency
   * @return the remaining amount (negative after an overspend)
   */
  public BigDecimal remaining(String currency) {
    Objects.requireNonNull(currency, "currency");
    return snapshot().getOrDefault(currency, BigDecimal.ZERO);
  }

  /**
   * Every counter at one moment.
   *
   * @return an unmodifiable map of currency to remaining amount, sorted by currency
   */
  public Map<String, BigDecimal> snapshot() {
    return errors.call(guard::remaining);
  }

  /**
   * Spends {@code amount} of {@code currency}. A negative amount or an untracked currency changes
   * nothing (the SDK's rule for negative metric values); otherwise the spend is always recorded,
   * even past zero.
   *
   * @param currency the currency
   * @param amount an exact amount ({@code java.math.BigDecimal} itself, not a subclass)
   * @throws RuntimeException never declared: {@code INVALID_REQUEST} for an amount outside
   *     leasekit's bounds
   */
  public void decrement(String currency, BigDecimal amount) {
    Objects.requireNonNull(currency, "currency");
    Objects.requireNonNull(amount, "amount");
    if (amount.getClass() != BigDecimal.class) {
      // A subclass could report one sign here and another value to the core.
      throw errors.rethrow(
          new InvalidRequestException(
              "an amount must be a java.math.BigDecimal, not " + amount.getClass().getName()));
    }
    if (amount.signum() < 0 || !tracks(currency)) {
      return;
    }
    BigDecimal value = exact(amount);
    errors.run(() -> guard.recordMetric(SPEND_METRIC, value, currency));
  }

  /**
   * The same value with its trailing fraction zeros dropped ({@code 0.1000000000} is {@code 0.1}):
   * the digit bounds apply to the value, not to the scale a computation left on it. A subclass is
   * passed on unchanged (leasekit refuses it).
   */
  private static BigDecimal exact(BigDecimal amount) {
    if (amount == null || amount.getClass() != BigDecimal.class || amount.scale() <= 0) {
      return amount;
    }
    return amount.stripTrailingZeros();
  }

  /**
   * Throws {@code BUDGET_EXHAUSTED} when any counter is at or below zero, like the SDK.
   *
   * @throws RuntimeException never declared: the SDK's (checked) {@code BudgetExhaustedException}
   *     when the SDK is present, leasekit's {@link BudgetExhaustedException} otherwise
   */
  public void ensureAllPositive() {
    Map<String, BigDecimal> snapshot;
    boolean exhausted;
    try {
      snapshot = guard.remaining();
      exhausted = guard.budget().isExhausted();
    } catch (LeaseException e) {
      throw errors.rethrow(e);
    }
    if (!exhausted) {
      return;
    }
    for (Map.Entry<String, BigDecimal> e : snapshot.entrySet()) {
      if (e.getValue().signum() <= 0) {
        throw errors.rethrow(
            new BudgetExhaustedException(
                "budget exhausted: " + e.getKey() + " remaining " + e.getValue().toPlainString(),
                Map.of("currency", e.getKey(), "remaining", e.getValue().toPlainString())));
      }
    }
    throw errors.rethrow(new BudgetExhaustedException("budget exhausted"));
  }

  /**
   * The leasekit counters behind this view ({@code reserve}, {@code spend} with a metric name).
   *
   * @return the counters
   */
  public BudgetCounters counters() {
    return guard.budget();
  }
}

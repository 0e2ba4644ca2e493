package dev.leasekit;

import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The rules of a {@link LeaseSubset} check that a caller may make stricter, for runtimes that apply
 * neither expiry inheritance nor "a currency the parent does not budget is unlimited there" (the
 * ARCP SDKs, see {@code docs/arcp.md}). Immutable; every setter returns a copy.
 *
 * <pre>{@code
 * SubsetOptions sdk = SubsetOptions.defaults().requireChildExpiry(true).requireParentCurrency(true);
 * LeaseSubset.validate(child, parent, null, sdk);
 * }</pre>
 */
public final class SubsetOptions {
  private static final SubsetOptions DEFAULTS = new SubsetOptions(false, false, false);

  private final boolean requireChildExpiry;
  private final boolean strictRemaining;
  private final boolean requireParentCurrency;

  private SubsetOptions(
      boolean requireChildExpiry, boolean strictRemaining, boolean requireParentCurrency) {
    this.requireChildExpiry = requireChildExpiry;
    this.strictRemaining = strictRemaining;
    this.requireParentCurrency = requireParentCurrency;
  }

  /**
   * leasekit's own rules: the parent's full budget, expiry inheritance, a currency the parent does
   * not budget unlimited.
   *
   * @return the default options
   */
  public static SubsetOptions defaults() {
    return DEFAULTS;
  }

  /**
   * Under a parent with an expiry, a child without one is a violation (by default it inherits the
   * parent's).
   *
   * @param on whether the rule applies
   * @return a copy with the rule set
   */
  public SubsetOptions requireChildExpiry(boolean on) {
    return new SubsetOptions(on, strictRemaining, requireParentCurrency);
  }

  /**
   * The remaining amounts list every currency the child may budget: a currency absent from them has
   * nothing left, and an entry limits the child even for a currency the parent's lease does not
   * budget. No effect without remaining amounts.
   *
   * @param on whether the rule applies
   * @return a copy with the rule set
   */
  public SubsetOptions strictRemaining(boolean on) {
    return new SubsetOptions(requireChildExpiry, on, requireParentCurrency);
  }

  /**
   * Every currency the child budgets must be one the parent grants (its lease budgets it; with
   * {@link #strictRemaining(boolean)}, the remaining amounts list it), whatever the child's amount,
   * zero included (by default a currency the parent does not budget is unlimited there).
   *
   * @param on whether the rule applies
   * @return a copy with the rule set
   */
  public SubsetOptions requireParentCurrency(boolean on) {
    return new SubsetOptions(requireChildExpiry, strictRemaining, on);
  }

  /**
   * The options as the core reads them, with the remaining amounts and the leases' own constraints.
   *
   * @param child the child lease (its constraints are the child's)
   * @param parent the parent lease (its constraints are the parent's)
   * @param parentRemaining remaining amount per currency, or {@code null}
   * @return the options JSON
   */
  String toJson(Lease child, Lease parent, Map<String, BigDecimal> parentRemaining) {
    Map<String, Object> options = new LinkedHashMap<>();
    if (parentRemaining != null) {
      options.put("parent_remaining", Json.plainAmounts(parentRemaining));
    }
    if (child.expiresAt().isPresent()) {
      options.put("child_constraints", Json.parse(child.constraints().toJson()));
    }
    if (parent.expiresAt().isPresent()) {
      options.put("parent_constraints", Json.parse(parent.constraints().toJson()));
    }
    if (requireChildExpiry) {
      options.put("require_child_expiry", true);
    }
    if (strictRemaining) {
      options.put("strict_remaining", true);
    }
    if (requireParentCurrency) {
      options.put("require_parent_currency", true);
    }
    return Json.write(options);
  }
}

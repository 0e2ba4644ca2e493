package dev.leasekit;

import java.math.BigDecimal;
import java.util.Map;
import java.util.Objects;

/**
 * The ARCP subset relation used for delegation: {@code child <= parent} when every child pattern's
 * language lies within the union of the parent's patterns (exact automaton inclusion), budgets fit
 * the parent's remaining amounts, and the child's deadline is no later than the parent's. The
 * leases' own {@link Lease#constraints()} supply the deadlines.
 */
public final class LeaseSubset {
  private LeaseSubset() {}

  /**
   * Checks {@code child <= parent}, with the parent's full budget.
   *
   * @param child the delegated lease
   * @param parent the delegating lease
   * @throws LeaseSubsetViolationException if not a subset; its details name the capability, the
   *     child pattern and a witness the parent does not cover
   */
  public static void validate(Lease child, Lease parent) {
    validate(child, parent, null);
  }

  /**
   * Checks {@code child <= parent} against the parent's remaining budget.
   *
   * @param child the delegated lease
   * @param parent the delegating lease
   * @param parentRemaining remaining amount per currency ({@code null}: the parent's full budget)
   * @throws LeaseSubsetViolationException if not a subset
   * @throws InvalidRequestException if an amount is malformed
   */
  public static void validate(Lease child, Lease parent, Map<String, BigDecimal> parentRemaining) {
    validate(child, parent, parentRemaining, SubsetOptions.defaults());
  }

  /**
   * Checks {@code child <= parent} against the parent's remaining budget, under {@code options}
   * (the stricter rules of runtimes without expiry inheritance).
   *
   * @param child the delegated lease
   * @param parent the delegating lease
   * @param parentRemaining remaining amount per currency ({@code null}: the parent's full budget)
   * @param options the rules
   * @throws LeaseSubsetViolationException if not a subset
   * @throws InvalidRequestException if an amount is malformed
   */
  public static void validate(
      Lease child, Lease parent, Map<String, BigDecimal> parentRemaining, SubsetOptions options) {
    Native.checkSubset(
        child.toJson(), parent.toJson(), options(child, parent, parentRemaining, options));
  }

  /**
   * Whether {@code child <= parent}, with the parent's full budget.
   *
   * @param child the delegated lease
   * @param parent the delegating lease
   * @return {@code true} if the child is a subset
   */
  public static boolean isSubset(Lease child, Lease parent) {
    return isSubset(child, parent, null);
  }

  /**
   * Whether {@code child <= parent} against the parent's remaining budget.
   *
   * @param child the delegated lease
   * @param parent the delegating lease
   * @param parentRemaining remaining amount per currency ({@code null}: the parent's full budget)
   * @return {@code true} if the child is a subset
   * @throws InvalidRequestException if an amount is malformed
   */
  public static boolean isSubset(
      Lease child, Lease parent, Map<String, BigDecimal> parentRemaining) {
    return isSubset(child, parent, parentRemaining, SubsetOptions.defaults());
  }

  /**
   * Whether {@code child <= parent} against the parent's remaining budget, under {@code options}.
   *
   * @param child the delegated lease
   * @param parent the delegating lease
   * @param parentRemaining remaining amount per currency ({@code null}: the parent's full budget)
   * @param options the rules
   * @return {@code true} if the child is a subset
   * @throws InvalidRequestException if an amount is malformed
   */
  public static boolean isSubset(
      Lease child, Lease parent, Map<String, BigDecimal> parentRemaining, SubsetOptions options) {
    return Native.isSubset(
        child.toJson(), parent.toJson(), options(child, parent, parentRemaining, options));
  }

  private static String options(
      Lease child, Lease parent, Map<String, BigDecimal> remaining, SubsetOptions options) {
    Objects.requireNonNull(child, "child");
    Objects.requireNonNull(parent, "parent");
    Objects.requireNonNull(options, "options");
    return options.toJson(child, parent, remaining);
  }
}

package dev.leasekit;

import java.util.Map;
import java.util.Optional;

/**
 * {@code LEASE_SUBSET_VIOLATION}: A delegated lease is not a subset of its parent; {@link
 * #details()} names the capability, the child pattern and a witness.
 */
public final class LeaseSubsetViolationException extends LeaseException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception without details.
   *
   * @param message a human-readable message (never compared by tests or callers)
   */
  public LeaseSubsetViolationException(String message) {
    this(message, Map.of());
  }

  /**
   * Creates the exception.
   *
   * @param message a human-readable message
   * @param details structured details (copied)
   */
  public LeaseSubsetViolationException(String message, Map<String, ?> details) {
    super(ErrorCode.LEASE_SUBSET_VIOLATION, message, details);
  }

  /**
   * The capability (or {@code "cost.budget"}, {@code "expires_at"}) that is not within the parent.
   *
   * @return the {@code capability} detail, if present
   */
  public Optional<String> capability() {
    return detail("capability");
  }

  /**
   * The child pattern that the parent does not cover.
   *
   * @return the {@code pattern} detail, if present
   */
  public Optional<String> pattern() {
    return detail("pattern");
  }

  /**
   * A string the child pattern matches and no parent pattern does.
   *
   * @return the {@code witness} detail, if present
   */
  public Optional<String> witness() {
    return detail("witness");
  }

  private Optional<String> detail(String key) {
    Object value = details().get(key);
    return value == null ? Optional.empty() : Optional.of(value.toString());
  }
}

package dev.leasekit;

import java.util.Objects;

/**
 * One lease-writing mistake found by {@link Lease#lint()}.
 *
 * @param code the stable machine code, e.g. {@code host-open-suffix} (compare codes, not messages)
 * @param capability the capability the pattern belongs to
 * @param pattern the pattern as the lease stores it
 * @param message what is wrong
 * @param hint how to write what was probably meant
 */
public record LeaseWarning(
    String code, String capability, String pattern, String message, String hint) {
  /**
   * Validates that no component is null.
   *
   * @param code the code
   * @param capability the capability
   * @param pattern the pattern
   * @param message the message
   * @param hint the hint
   */
  public LeaseWarning {
    Objects.requireNonNull(code, "code");
    Objects.requireNonNull(capability, "capability");
    Objects.requireNonNull(pattern, "pattern");
    Objects.requireNonNull(message, "message");
    Objects.requireNonNull(hint, "hint");
  }
}

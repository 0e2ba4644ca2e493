package dev.leasekit;

import java.util.Objects;

/**
 * Capability names, target canonicalization and pattern matching, exactly as the guard applies
 * them. There is no raw matcher: {@link #matchPattern} validates the pattern and canonicalizes the
 * target first.
 */
public final class Capabilities {
  private Capabilities() {}

  /**
   * Whether a name is a valid capability: one of the seven reserved names or {@code
   * x-vendor.<segment>.<segment>...}.
   *
   * @param name the name
   * @return {@code true} if valid
   */
  public static boolean isValidCapabilityName(String name) {
    return Native.isValidCapabilityName(Objects.requireNonNull(name, "name"));
  }

  /**
   * Whether a name is one of the seven reserved ARCP capabilities ({@code fs.read}, {@code
   * fs.write}, {@code net.fetch}, {@code tool.call}, {@code agent.delegate}, {@code model.use},
   * {@code cost.budget}).
   *
   * @param name the name
   * @return {@code true} if reserved
   */
  public static boolean isReservedCapabilityName(String name) {
    return Native.isReservedCapabilityName(Objects.requireNonNull(name, "name"));
  }

  /**
   * The canonical form of a target: POSIX-normalized absolute paths for {@code fs.*}, normalized
   * URLs for {@code net.fetch} (userinfo rejected, default port dropped, dot segments removed),
   * verbatim otherwise. No symlink resolution: that is the runtime's job.
   *
   * @param capability the capability
   * @param target the target
   * @return the canonical target
   * @throws InvalidRequestException if the target is malformed for the capability
   */
  public static String canonicalizeTarget(String capability, String target) {
    return Native.canonicalizeTarget(
        Objects.requireNonNull(capability, "capability"), Objects.requireNonNull(target, "target"));
  }

  /**
   * Validates a pattern and returns its stored (canonical) form.
   *
   * @param capability the capability
   * @param pattern the glob pattern
   * @return the stored pattern
   * @throws InvalidRequestException if the pattern is malformed
   */
  public static String validatePattern(String capability, String pattern) {
    return Native.validatePattern(
        Objects.requireNonNull(capability, "capability"),
        Objects.requireNonNull(pattern, "pattern"));
  }

  /**
   * Whether a pattern matches a target (after canonicalizing the target). {@code *} matches within
   * one segment, a whole-segment {@code **} any number of segments.
   *
   * @param capability the capability (decides the separators)
   * @param pattern the glob pattern
   * @param target the target
   * @return {@code true} on a match
   * @throws InvalidRequestException if the pattern or the target is malformed
   */
  public static boolean matchPattern(String capability, String pattern, String target) {
    return Native.matchPattern(
        Objects.requireNonNull(capability, "capability"),
        Objects.requireNonNull(pattern, "pattern"),
        Objects.requireNonNull(target, "target"));
  }
}

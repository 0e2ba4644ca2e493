package dev.leasekit;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code lease_constraints} of a job: for now the optional {@code expires_at} deadline.
 * Immutable.
 *
 * <pre>{@code
 * LeaseConstraints c = LeaseConstraints.of(Instant.now().plusSeconds(3600));
 * c.toString(); // "2026-05-01T12:00:00Z" style, always with Z
 * }</pre>
 */
public final class LeaseConstraints {
  private static final LeaseConstraints NONE = new LeaseConstraints(null);

  private final Instant expiresAt;

  private LeaseConstraints(Instant expiresAt) {
    this.expiresAt = expiresAt;
  }

  /**
   * No constraints (the lease never expires).
   *
   * @return the empty constraints
   */
  public static LeaseConstraints none() {
    return NONE;
  }

  /**
   * Constraints with a deadline.
   *
   * @param expiresAt the instant at and after which operations fail with {@code LEASE_EXPIRED}
   * @return the constraints
   * @throws InvalidRequestException if the instant cannot be written in ARCP form (years outside
   *     0000-9999)
   */
  public static LeaseConstraints of(Instant expiresAt) {
    Objects.requireNonNull(expiresAt, "expiresAt");
    parseStrictUtc(Times.format(expiresAt));
    return new LeaseConstraints(expiresAt);
  }

  /**
   * Parses ARCP constraints JSON, {@code {"expires_at": "2026-01-01T00:00:00Z"}}; {@code null},
   * {@code "null"} and {@code "{}"} mean none.
   *
   * @param json the JSON text
   * @return the constraints
   * @throws InvalidRequestException if the JSON or the timestamp is malformed
   */
  public static LeaseConstraints fromJson(String json) {
    if (json == null) {
      return NONE;
    }
    JsonNode node = Json.parse(Native.constraintsCanonical(json));
    JsonNode expires = node.get("expires_at");
    if (expires == null || expires.isNull()) {
      return NONE;
    }
    return new LeaseConstraints(Instant.parse(expires.asText()));
  }

  /**
   * Parses an ARCP timestamp strictly: exactly {@code YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z}, upper-case
   * {@code T} and {@code Z}, no offsets ({@code +00:00} is rejected), a valid calendar date.
   *
   * @param text the timestamp
   * @return the instant
   * @throws InvalidRequestException if the text is not in that form
   */
  public static Instant parseStrictUtc(String text) {
    Objects.requireNonNull(text, "text");
    return Times.fromNanos(Native.parseExpiresAtNanos(text));
  }

  /**
   * The deadline, if any.
   *
   * @return {@code expires_at}
   */
  public Optional<Instant> expiresAt() {
    return Optional.ofNullable(expiresAt);
  }

  /**
   * Checks the constraints at submit time: {@code expires_at} must be strictly after now.
   *
   * @param clock the clock giving "now"
   * @throws InvalidRequestException if the deadline is not in the future
   */
  public void validate(Clock clock) {
    validateAt(clock.instant());
  }

  /**
   * Checks the constraints at submit time against an explicit instant.
   *
   * @param now the submit time
   * @throws InvalidRequestException if the deadline is not strictly after {@code now}
   */
  public void validateAt(Instant now) {
    Native.validateConstraints(toJson(), now.getEpochSecond(), now.getNano());
  }

  /**
   * The effective constraints of a request under a ceiling (the earlier deadline).
   *
   * @param ceiling the ceiling's constraints
   * @return the narrowed constraints
   */
  public LeaseConstraints narrow(LeaseConstraints ceiling) {
    return fromJson(Native.narrowConstraintsJson(toJson(), ceiling.toJson()));
  }

  /**
   * The constraints as ARCP JSON ({@code {}} or {@code {"expires_at": "...Z"}}).
   *
   * @return JSON text
   */
  public String toJson() {
    return Json.write(expiresAt == null ? Map.of() : Map.of("expires_at", Times.format(expiresAt)));
  }

  /**
   * The deadline in ARCP form (always with {@code Z}), or {@code "none"}.
   *
   * @return a readable form
   */
  @Override
  public String toString() {
    return expiresAt == null ? "none" : Times.format(expiresAt);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LeaseConstraints other && Objects.equals(expiresAt, other.expiresAt);
  }

  @Override
  public int hashCode() {
    return Objects.hashCode(expiresAt);
  }
}

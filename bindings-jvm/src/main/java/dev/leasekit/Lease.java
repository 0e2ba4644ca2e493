package dev.leasekit;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * An ARCP lease: capability name to glob patterns, plus its {@link LeaseConstraints}. Immutable and
 * validated on construction by the Rust core; patterns are stored in canonical form (for example
 * {@code HTTPS://API.example.com:443} becomes {@code https://api.example.com/}).
 *
 * <pre>{@code
 * Lease lease = Lease.builder()
 *     .allow("fs.read", "/data/**")
 *     .allow("net.fetch", "https://api.example.com/**")
 *     .allow("model.use", "claude-*", "gpt-4*")
 *     .budget("USD", new BigDecimal("10.00"))
 *     .expiresAt(Instant.now().plus(Duration.ofHours(1)))
 *     .build();
 * }</pre>
 */
public final class Lease {
  private final String json;
  private final Map<String, List<String>> capabilities;
  private final LeaseConstraints constraints;

  private Lease(String canonicalJson, LeaseConstraints constraints) {
    this.json = canonicalJson;
    this.capabilities = parseCanonical(canonicalJson);
    this.constraints = Objects.requireNonNull(constraints, "constraints");
  }

  /**
   * Starts building a lease.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Parses an ARCP lease JSON object (capability to array of strings), without constraints.
   *
   * @param json the lease JSON
   * @return the validated lease
   * @throws InvalidRequestException if the lease is malformed (unknown capability, bad pattern, bad
   *     budget entry, duplicate key, ...)
   */
  public static Lease fromJson(String json) {
    return fromJson(json, LeaseConstraints.none());
  }

  /**
   * Parses an ARCP lease JSON object with its constraints.
   *
   * @param json the lease JSON
   * @param constraints the lease constraints
   * @return the validated lease
   * @throws InvalidRequestException if the lease is malformed
   */
  public static Lease fromJson(String json, LeaseConstraints constraints) {
    Objects.requireNonNull(json, "json");
    return new Lease(Native.leaseCanonical(json), constraints);
  }

  /**
   * Builds a lease from a map, without constraints.
   *
   * @param capabilities capability name to patterns
   * @return the validated lease
   * @throws InvalidRequestException if the lease is malformed
   */
  public static Lease of(Map<String, ? extends Collection<String>> capabilities) {
    return fromJson(Json.write(Json.plainLease(capabilities)));
  }

  /**
   * The same lease with other constraints.
   *
   * @param constraints the new constraints
   * @return a lease with the same capabilities
   */
  public Lease withConstraints(LeaseConstraints constraints) {
    return new Lease(json, constraints);
  }

  /**
   * The capability names, in canonical order.
   *
   * @return an unmodifiable set
   */
  public Set<String> capabilities() {
    return capabilities.keySet();
  }

  /**
   * The stored (canonical) patterns of a capability.
   *
   * @param capability a capability name
   * @return the patterns (possibly empty: {@code []} grants nothing), or empty when the lease does
   *     not name the capability
   */
  public Optional<List<String>> patterns(String capability) {
    return Optional.ofNullable(capabilities.get(capability));
  }

  /**
   * The whole lease as a map.
   *
   * @return an unmodifiable map of unmodifiable lists
   */
  public Map<String, List<String>> asMap() {
    return capabilities;
  }

  /**
   * The summed {@code cost.budget} per currency.
   *
   * @return an unmodifiable, sorted map of exact amounts (empty without a budget)
   */
  public Map<String, BigDecimal> budget() {
    return Json.amounts(Native.leaseBudget(json));
  }

  /**
   * The lease constraints.
   *
   * @return the constraints ({@link LeaseConstraints#none()} if none were given)
   */
  public LeaseConstraints constraints() {
    return constraints;
  }

  /**
   * The deadline of the constraints.
   *
   * @return {@code constraints().expiresAt()}
   */
  public Optional<Instant> expiresAt() {
    return constraints.expiresAt();
  }

  /**
   * The canonical ARCP JSON of the capabilities (constraints are separate, see {@link
   * LeaseConstraints#toJson()}).
   *
   * @return JSON text
   */
  public String toJson() {
    return json;
  }

  /**
   * Lease-writing mistakes: patterns that are valid but almost never meant, because they grant more
   * than they seem to ({@code https://api.example.com**} also matches {@code
   * https://api.example.com.evil.com/}) or can never match a canonical target (a {@code ..}
   * segment). The core decides ({@code leasekit::lint_lease}); lint never changes what the lease
   * grants.
   *
   * @return the warnings in capability and pattern order (empty when there are none)
   */
  public List<LeaseWarning> lint() {
    JsonNode warnings = Json.parse(Native.leaseLint(json)).path("warnings");
    return List.of(Json.read(warnings, LeaseWarning[].class));
  }

  @Override
  public String toString() {
    return constraints.expiresAt().isEmpty() ? json : json + " until " + constraints;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Lease other
        && capabilities.equals(other.capabilities)
        && constraints.equals(other.constraints);
  }

  @Override
  public int hashCode() {
    return Objects.hash(capabilities, constraints);
  }

  private static Map<String, List<String>> parseCanonical(String json) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    Json.parse(json)
        .fields()
        .forEachRemaining(e -> out.put(e.getKey(), Json.strings(e.getValue())));
    return Collections.unmodifiableMap(out);
  }

  /** Builds a {@link Lease}; {@link #build()} validates everything at once. Not thread-safe. */
  public static final class Builder {
    private final Map<String, List<String>> capabilities = new LinkedHashMap<>();
    private LeaseConstraints constraints = LeaseConstraints.none();

    private Builder() {}

    /**
     * Grants patterns for a capability (appending to earlier ones). With no patterns the capability
     * is present with {@code []}, which grants nothing.
     *
     * @param capability a capability name such as {@code "net.fetch"}
     * @param patterns glob patterns
     * @return this builder
     */
    public Builder allow(String capability, String... patterns) {
      Objects.requireNonNull(capability, "capability");
      List<String> list = capabilities.computeIfAbsent(capability, k -> new ArrayList<>());
      for (String p : patterns) {
        list.add(Objects.requireNonNull(p, "pattern"));
      }
      return this;
    }

    /**
     * Adds a {@code cost.budget} entry; entries of the same currency sum.
     *
     * @param currency a currency code such as {@code "USD"} (case-sensitive)
     * @param amount a non-negative exact amount (at most 15 integer and 9 fraction digits)
     * @return this builder
     */
    public Builder budget(String currency, BigDecimal amount) {
      Objects.requireNonNull(currency, "currency");
      Objects.requireNonNull(amount, "amount");
      return allow("cost.budget", currency + ":" + Json.amountText(amount));
    }

    /**
     * Sets the deadline ({@code lease_constraints.expires_at}).
     *
     * @param expiresAt the deadline
     * @return this builder
     */
    public Builder expiresAt(Instant expiresAt) {
      this.constraints = LeaseConstraints.of(expiresAt);
      return this;
    }

    /**
     * Sets the constraints.
     *
     * @param constraints the constraints
     * @return this builder
     */
    public Builder constraints(LeaseConstraints constraints) {
      this.constraints = Objects.requireNonNull(constraints, "constraints");
      return this;
    }

    /**
     * Validates and builds the lease.
     *
     * @return the lease
     * @throws InvalidRequestException if anything is malformed
     */
    public Lease build() {
      return Lease.fromJson(Json.write(capabilities), constraints);
    }
  }
}

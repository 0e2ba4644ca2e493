package dev.leasekit;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Narrowing at submit: the effective lease of a request under a ceiling. Capabilities the ceiling
 * lacks are dropped, covered patterns stay, otherwise the ceiling patterns inside them replace
 * them; budgets keep the smaller amount, the deadline the earlier one. The result is a subset of
 * both inputs.
 */
public final class Narrowing {
  private Narrowing() {}

  /**
   * Narrows a requested lease (and its constraints) under a ceiling.
   *
   * @param requested the lease the job asks for
   * @param ceiling the most the runtime grants
   * @return the effective lease and the list of reductions
   */
  public static Narrowed narrow(Lease requested, Lease ceiling) {
    Objects.requireNonNull(requested, "requested");
    Objects.requireNonNull(ceiling, "ceiling");
    JsonNode out = Json.parse(Native.narrow(requested.toJson(), ceiling.toJson()));
    LeaseConstraints constraints = requested.constraints().narrow(ceiling.constraints());
    Lease lease = Lease.fromJson(Json.write(out.get("lease")), constraints);
    List<Reduction> reductions = new ArrayList<>();
    for (JsonNode r : out.path("reductions")) {
      JsonNode pattern = r.get("pattern");
      reductions.add(
          new Reduction(
              r.path("capability").asText(),
              pattern == null || pattern.isNull() ? null : pattern.asText(),
              r.path("action").asText(),
              Json.strings(r.path("replacement"))));
    }
    return new Narrowed(lease, List.copyOf(reductions));
  }

  /**
   * The result of {@link #narrow}.
   *
   * @param lease the effective lease, with the effective constraints
   * @param reductions what was dropped or replaced, in order
   */
  public record Narrowed(Lease lease, List<Reduction> reductions) {}

  /**
   * One reduction made by narrowing.
   *
   * @param capability the capability concerned
   * @param pattern the requested pattern concerned, or {@code null} for a whole capability
   * @param action what happened, as named by the core (e.g. dropped or replaced)
   * @param replacement the ceiling patterns that replaced it (empty if none)
   */
  public record Reduction(
      String capability, String pattern, String action, List<String> replacement) {}
}

package dev.leasekit;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The agentrc Agentfile (draft 0.1.0-draft.4): parse, lint and derive the lease it requests.
 *
 * <pre>{@code
 * Agentfile.Report report = Agentfile.check(text);
 * if (report.ok()) {
 *   Lease lease = report.lease().orElseThrow();
 * } else {
 *   report.errors().forEach(d -> System.err.println(d.line() + ":" + d.column() + " " + d.code()));
 * }
 * }</pre>
 */
public final class Agentfile {
  private Agentfile() {}

  /**
   * Checks an Agentfile in strict mode.
   *
   * @param text the Agentfile source
   * @return the diagnostics and, when there is no error, the derived lease
   */
  public static Report check(String text) {
    return check(text, false);
  }

  /**
   * Checks an Agentfile.
   *
   * @param text the Agentfile source
   * @param compat compat mode (a two-argument {@code BIND} is a warning instead of an error)
   * @return the diagnostics and, when there is no error, the derived lease
   */
  public static Report check(String text, boolean compat) {
    Objects.requireNonNull(text, "text");
    JsonNode node = Json.parse(Native.agentfileCheck(text, compat));
    List<Diagnostic> diagnostics = new ArrayList<>();
    for (JsonNode d : node.path("diagnostics")) {
      JsonNode hint = d.get("hint");
      diagnostics.add(
          new Diagnostic(
              d.path("code").asText(),
              d.path("severity").asText(),
              d.path("line").asInt(),
              d.path("column").asInt(),
              d.path("message").asText(),
              hint == null || hint.isNull() ? null : hint.asText()));
    }
    JsonNode lease = node.get("lease");
    Lease derived = lease == null || lease.isNull() ? null : Lease.fromJson(Json.write(lease));
    return new Report(
        node.path("ok").asBoolean(), List.copyOf(diagnostics), Optional.ofNullable(derived));
  }

  /**
   * The result of {@link #check}.
   *
   * @param ok {@code true} when no diagnostic has severity {@code error}
   * @param diagnostics parse and lint diagnostics, sorted by position
   * @param lease the derived lease, present exactly when {@code ok}
   */
  public record Report(boolean ok, List<Diagnostic> diagnostics, Optional<Lease> lease) {
    /**
     * The diagnostics of severity {@code error}.
     *
     * @return the errors, in order
     */
    public List<Diagnostic> errors() {
      return diagnostics.stream().filter(Diagnostic::isError).toList();
    }
  }

  /**
   * One diagnostic.
   *
   * @param code a stable code such as {@code unknown-directive}
   * @param severity {@code error}, {@code warning} or {@code info}
   * @param line 1-based line (0 = the whole file)
   * @param column 1-based column in characters (0 = the whole file)
   * @param message a human-readable explanation (wording may change)
   * @param hint a suggested fix, or {@code null}
   */
  public record Diagnostic(
      String code, String severity, int line, int column, String message, String hint) {
    /**
     * Whether this diagnostic makes the Agentfile invalid.
     *
     * @return {@code severity == "error"}
     */
    public boolean isError() {
      return "error".equals(severity);
    }
  }
}

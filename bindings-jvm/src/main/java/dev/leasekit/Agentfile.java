package dev.leasekit;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The agentrc Agentfile (draft 0.1.0-draft.4): a parsed file and core's nine Agentfile functions
 * ({@code leasekit::agentfile}): {@link #parse} ({@code parse_agentfile}), {@link #lint}, {@link
 * #lease} ({@code agentfile_lease}), {@link #check} ({@code check_agentfile}), {@link #lock},
 * {@link #lockfileJson}, {@link #packageDigest}, {@link #checkInheritance} and {@link
 * #evaluatePolicy}.
 *
 * <pre>{@code
 * Agentfile af = Agentfile.parse(text);
 * if (af.lint().stream().noneMatch(Agentfile.Diagnostic::isError)) {
 *   Lease lease = af.lease();
 *   String lockfile = af.lockfileJson();
 * }
 * }</pre>
 *
 * <p>A parsed Agentfile lives in native memory (freed when this object is garbage collected). The
 * core never keeps a secret value: a {@code CRED} token that may be one is stored as {@code
 * <redacted>}, so nothing read from this object (its JSON, diagnostics, lockfile, {@link
 * #toString}) can carry one.
 */
public final class Agentfile {
  private final NativeHandle handle;

  private Agentfile(long nativeHandle) {
    this.handle =
        new NativeHandle(
            nativeHandle,
            Native::agentfileFree,
            () -> new InvalidRequestException("the Agentfile is released"));
  }

  /**
   * Parses an Agentfile in strict mode. Parsing never fails on content: problems are {@link
   * #diagnostics()}.
   *
   * @param text the Agentfile source
   * @return the parsed file
   */
  public static Agentfile parse(String text) {
    return parse(text, false);
  }

  /**
   * Parses an Agentfile ({@code parse_agentfile}).
   *
   * @param text the Agentfile source
   * @param compat compat mode (a two-argument {@code BIND} is a warning instead of an error)
   * @return the parsed file
   * @throws InvalidRequestException if {@code text} is not valid Unicode (a lone surrogate)
   */
  public static Agentfile parse(String text, boolean compat) {
    Objects.requireNonNull(text, "text");
    return new Agentfile(Native.agentfileParse(text, compat));
  }

  /**
   * The parse diagnostics (lint adds more: see {@link #lint()}).
   *
   * @return the diagnostics, by position
   */
  public List<Diagnostic> diagnostics() {
    return diagnostics(Json.parse(toJson()).path("diagnostics"));
  }

  /**
   * Whether a parse diagnostic has severity {@code error}.
   *
   * @return {@code true} if the file does not parse cleanly
   */
  public boolean hasErrors() {
    return diagnostics().stream().anyMatch(Diagnostic::isError);
  }

  /**
   * The parsed file as JSON: {@code syntax}, {@code directives} (name, args, text, line, column,
   * span, block), {@code creds} (name, source reference, hosts, inject, line; never a value),
   * {@code diagnostics}, {@code compat}, {@code source_sha256}, {@code newer_grammar}.
   *
   * @return core's JSON form of the parsed file
   */
  public String toJson() {
    return handle.call(Native::agentfileToJson);
  }

  /**
   * Lints the file ({@code lint}): the parse diagnostics plus every lint rule. The file is valid
   * when no diagnostic has severity {@code error}.
   *
   * @return the diagnostics, by position
   */
  public List<Diagnostic> lint() {
    return diagnostics(Json.parse(handle.call(Native::agentfileLint)));
  }

  /**
   * The lease the file requests ({@code agentfile_lease}: {@code TOOL}, {@code URL}, {@code
   * SERVER}, {@code MOUNT}).
   *
   * @return the derived lease
   * @throws InvalidRequestException if the file has parse errors or a derived pattern is invalid
   *     (lint errors alone do not prevent it: {@link #check} withholds the lease for those)
   */
  public Lease lease() {
    return Lease.fromJson(handle.call(Native::agentfileLease));
  }

  /**
   * The lockfile ({@code lock}) as a map of plain values.
   *
   * @return the lockfile
   * @throws InvalidRequestException if lint reports an error
   */
  public Map<String, Object> lock() {
    return GovernorJson.answer(lockfileJson());
  }

  /**
   * The lockfile as deterministic pretty JSON with a trailing newline ({@code lockfile_json}: the
   * {@code agentrc.lock} content).
   *
   * @return the lockfile text
   * @throws InvalidRequestException if lint reports an error
   */
  public String lockfileJson() {
    return handle.call(Native::agentfileLockfileJson);
  }

  /**
   * The package identity ({@code package_digest}: the non-placement directives).
   *
   * @return {@code sha256:<hex>}
   */
  public String packageDigest() {
    return handle.call(Native::agentfilePackageDigest);
  }

  /**
   * Checks that this (child) Agentfile only narrows {@code parent} ({@code check_inheritance}): its
   * lease is a subset of the parent's and it does not lower {@code AUDIT}.
   *
   * @param parent the Agentfile this one inherits from
   * @throws LeaseSubsetViolationException if the child grants more than the parent
   * @throws InvalidRequestException if a lease cannot be derived or {@code AUDIT} is lowered
   */
  public void checkInheritance(Agentfile parent) {
    Objects.requireNonNull(parent, "parent");
    parent.handle.call(
        p ->
            handle.call(
                c -> {
                  Native.agentfileCheckInheritance(p, c);
                  return null;
                }));
  }

  /**
   * Evaluates a Cedar request with no context; see {@link #evaluatePolicy(String, String, String,
   * Map)}.
   *
   * @param principal a Cedar entity uid, e.g. {@code AgentRC::Agent::"a"}
   * @param action a Cedar entity uid, e.g. {@code AgentRC::Action::"call"}
   * @param resource a Cedar entity uid, e.g. {@code AgentRC::Tool::"file_read"}
   * @return the decision
   */
  public PolicyDecision evaluatePolicy(String principal, String action, String resource) {
    return evaluatePolicy(principal, action, resource, null);
  }

  /**
   * Evaluates a Cedar request against the file's policy ({@code evaluate_policy}: {@code POLICY}
   * blocks plus the lowered {@code ALLOW}/{@code DENY}/{@code RATELIMIT}). Fails closed: any parse
   * or evaluation error is a denial with the error listed.
   *
   * @param principal a Cedar entity uid, e.g. {@code AgentRC::Agent::"a"}
   * @param action a Cedar entity uid, e.g. {@code AgentRC::Action::"call"}
   * @param resource a Cedar entity uid, e.g. {@code AgentRC::Tool::"file_read"}
   * @param context the request context (plain data: strings, numbers, booleans, maps, lists), or
   *     {@code null}
   * @return the decision
   * @throws InvalidRequestException if the context is not plain data or a string is not valid
   *     Unicode
   */
  public PolicyDecision evaluatePolicy(
      String principal, String action, String resource, Map<String, ?> context) {
    Objects.requireNonNull(principal, "principal");
    Objects.requireNonNull(action, "action");
    Objects.requireNonNull(resource, "resource");
    String contextJson = context == null ? null : GovernorJson.payload(context);
    JsonNode d =
        Json.parse(
            handle.call(
                h -> Native.agentfileEvaluatePolicy(h, principal, action, resource, contextJson)));
    return new PolicyDecision(
        d.path("allowed").asBoolean(false),
        Json.strings(d.path("determining")),
        Json.strings(d.path("errors")));
  }

  /** Shows the directive count and whether the file has errors; never a directive's text. */
  @Override
  public String toString() {
    JsonNode node = Json.parse(toJson());
    return "Agentfile(directives="
        + node.path("directives").size()
        + ", hasErrors="
        + hasErrors()
        + ", source="
        + node.path("source_sha256").asText()
        + ")";
  }

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
   * Parses, lints and derives the lease in one call ({@code check_agentfile}).
   *
   * @param text the Agentfile source
   * @param compat compat mode (a two-argument {@code BIND} is a warning instead of an error)
   * @return the diagnostics and, when there is no error, the derived lease
   */
  public static Report check(String text, boolean compat) {
    Objects.requireNonNull(text, "text");
    JsonNode node = Json.parse(Native.agentfileCheck(text, compat));
    JsonNode lease = node.get("lease");
    Lease derived = lease == null || lease.isNull() ? null : Lease.fromJson(Json.write(lease));
    return new Report(
        node.path("ok").asBoolean(),
        diagnostics(node.path("diagnostics")),
        Optional.ofNullable(derived));
  }

  private static List<Diagnostic> diagnostics(JsonNode array) {
    return List.of(Json.read(array, Diagnostic[].class));
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
   * One diagnostic. It never quotes a credential value.
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

  /**
   * A Cedar policy decision ({@link #evaluatePolicy}).
   *
   * @param allowed {@code true} only for a Cedar {@code Allow} with no error anywhere
   * @param determining ids of the policies that determined the decision (sorted)
   * @param errors parse or evaluation errors (any error means a denial)
   */
  public record PolicyDecision(boolean allowed, List<String> determining, List<String> errors) {}
}

package dev.leasekit;

import java.util.Map;

/**
 * The governor's commands (docs/governor.md), shared by the embedded {@link Governor} and the
 * daemon's {@link GovernorClient}, so a program switches between them by its constructor.
 *
 * <p>Each typed method takes the request as a {@link Map} or as JSON text, in the protocol's field
 * names ({@code Map.of("actorId", "alice", "estimatedCostCents", 5)}), and answers the response as
 * an unmodifiable map in the protocol's field names ({@code resp.get("granted")}, {@code
 * resp.get("leaseId")}): integers as {@code Integer}/{@code Long}, fractions as exact {@code
 * BigDecimal}s. Every shape is the core's and every call is strict: an unknown command or field, a
 * wrong type or malformed JSON is an {@link InvalidRequestException} (a misspelt field never
 * silently takes its default). {@link #handle} is the wire dispatcher instead: the protocol's
 * envelope in and out, unknown fields ignored as the protocol does.
 */
public interface GovernorApi extends AutoCloseable {
  /**
   * Runs {@code command} strictly and answers the response payload as JSON text.
   *
   * @param command the command name, e.g. {@code "Acquire"}
   * @param payloadJson the request as a JSON object ({@code null}: {@code {}})
   * @return the response payload JSON
   * @throws LeaseException with the core's code when the command is refused or fails
   */
  String callJson(String command, String payloadJson);

  /**
   * The wire dispatcher: runs {@code command} with {@code payloadJson} as the protocol does and
   * answers the response envelope {@code {"protocolVersion","success","payloadJson","error"}} as
   * JSON text; a refused command is {@code success: false}, not an exception.
   *
   * @param command the command name
   * @param payloadJson the payload JSON text
   * @return the response envelope JSON
   */
  String handle(String command, String payloadJson);

  /**
   * Closes this governor or client; later calls throw {@link InvalidRequestException}. Idempotent.
   */
  @Override
  void close();

  /**
   * Runs {@code command} strictly with a request map.
   *
   * @param command the command name, e.g. {@code "Acquire"}
   * @param request the request in protocol field names ({@code null}: empty)
   * @return the response payload
   */
  default Map<String, Object> call(String command, Map<String, ?> request) {
    return GovernorJson.answer(callJson(command, GovernorJson.payload(request)));
  }

  /**
   * Runs {@code command} strictly with a JSON request.
   *
   * @param command the command name
   * @param requestJson the request as a JSON object ({@code null}: {@code {}})
   * @return the response payload
   */
  default Map<String, Object> call(String command, String requestJson) {
    return GovernorJson.answer(callJson(command, GovernorJson.payload(requestJson)));
  }

  // BEGIN generated (scripts/gen-governor-methods.py)
  /**
   * {@code Acquire}: a grant ({@code granted}, {@code leaseId}, {@code expiresAtUtc}, {@code
   * constraints}) or a denial ({@code deniedReason}, {@code retryAfterMs}, {@code recommendation}).
   *
   * @param request the request in protocol field names
   * @return the response payload
   */
  default Map<String, Object> acquire(Map<String, ?> request) {
    return call("Acquire", request);
  }

  /**
   * {@code Acquire} with a JSON request (see {@link #acquire(Map)}).
   *
   * @param requestJson the request as a JSON object
   * @return the response payload
   */
  default Map<String, Object> acquire(String requestJson) {
    return call("Acquire", requestJson);
  }

  /**
   * {@code Release}: the actuals of a granted lease in; {@code classification} and the {@code
   * receipt} out.
   *
   * @param request the request in protocol field names
   * @return the response payload
   */
  default Map<String, Object> release(Map<String, ?> request) {
    return call("Release", request);
  }

  /**
   * {@code Release} with a JSON request (see {@link #release(Map)}).
   *
   * @param requestJson the request as a JSON object
   * @return the response payload
   */
  default Map<String, Object> release(String requestJson) {
    return call("Release", requestJson);
  }

  /**
   * {@code RequestApproval}: asks for an approval.
   *
   * @param request the request in protocol field names
   * @return the response payload
   */
  default Map<String, Object> requestApproval(Map<String, ?> request) {
    return call("RequestApproval", request);
  }

  /**
   * {@code RequestApproval} with a JSON request (see {@link #requestApproval(Map)}).
   *
   * @param requestJson the request as a JSON object
   * @return the response payload
   */
  default Map<String, Object> requestApproval(String requestJson) {
    return call("RequestApproval", requestJson);
  }

  /**
   * {@code GrantApproval}: grants an approval (its token is in the answer).
   *
   * @param request the request in protocol field names
   * @return the response payload
   */
  default Map<String, Object> grantApproval(Map<String, ?> request) {
    return call("GrantApproval", request);
  }

  /**
   * {@code GrantApproval} with a JSON request (see {@link #grantApproval(Map)}).
   *
   * @param requestJson the request as a JSON object
   * @return the response payload
   */
  default Map<String, Object> grantApproval(String requestJson) {
    return call("GrantApproval", requestJson);
  }

  /**
   * {@code DenyApproval}: denies an approval.
   *
   * @param request the request in protocol field names
   * @return the response payload
   */
  default Map<String, Object> denyApproval(Map<String, ?> request) {
    return call("DenyApproval", request);
  }

  /**
   * {@code DenyApproval} with a JSON request (see {@link #denyApproval(Map)}).
   *
   * @param requestJson the request as a JSON object
   * @return the response payload
   */
  default Map<String, Object> denyApproval(String requestJson) {
    return call("DenyApproval", requestJson);
  }

  /**
   * {@code ListPendingApprovals}: the pending approvals, oldest first, one page ({@code limit},
   * {@code afterApprovalId}) at a time.
   *
   * @param request the request in protocol field names
   * @return the response payload
   */
  default Map<String, Object> listPendingApprovals(Map<String, ?> request) {
    return call("ListPendingApprovals", request);
  }

  /**
   * {@code ListPendingApprovals} with a JSON request (see {@link #listPendingApprovals(Map)}).
   *
   * @param requestJson the request as a JSON object
   * @return the response payload
   */
  default Map<String, Object> listPendingApprovals(String requestJson) {
    return call("ListPendingApprovals", requestJson);
  }

  /**
   * {@code ListPendingApprovals} with an empty request (see {@link #listPendingApprovals(Map)}).
   *
   * @return the response payload
   */
  default Map<String, Object> listPendingApprovals() {
    return call("ListPendingApprovals", (String) null);
  }

  /**
   * {@code ReviewApproval}: one reviewer's decision (quorum; a requester cannot review their own
   * approval).
   *
   * @param request the request in protocol field names
   * @return the response payload
   */
  default Map<String, Object> reviewApproval(Map<String, ?> request) {
    return call("ReviewApproval", request);
  }

  /**
   * {@code ReviewApproval} with a JSON request (see {@link #reviewApproval(Map)}).
   *
   * @param requestJson the request as a JSON object
   * @return the response payload
   */
  default Map<String, Object> reviewApproval(String requestJson) {
    return call("ReviewApproval", requestJson);
  }

  /**
   * {@code GetMetrics}: active leases, spend today, pool utilization, grants and denials by reason.
   *
   * @return the response payload
   */
  default Map<String, Object> metrics() {
    return call("GetMetrics", (String) null);
  }

  /**
   * {@code GetStatus}: health, the store, active leases, pending approvals, spend today, the policy
   * version and the audit chain length.
   *
   * @return the response payload
   */
  default Map<String, Object> status() {
    return call("GetStatus", (String) null);
  }

  /**
   * {@code ExportDiagnostics}: the diagnostics document (inline).
   *
   * @param request the request in protocol field names
   * @return the response payload
   */
  default Map<String, Object> exportDiagnostics(Map<String, ?> request) {
    return call("ExportDiagnostics", request);
  }

  /**
   * {@code ExportDiagnostics} with a JSON request (see {@link #exportDiagnostics(Map)}).
   *
   * @param requestJson the request as a JSON object
   * @return the response payload
   */
  default Map<String, Object> exportDiagnostics(String requestJson) {
    return call("ExportDiagnostics", requestJson);
  }

  /**
   * {@code ExportRunawayReport}: the runaway report (inline).
   *
   * @param request the request in protocol field names
   * @return the response payload
   */
  default Map<String, Object> exportRunawayReport(Map<String, ?> request) {
    return call("ExportRunawayReport", request);
  }

  /**
   * {@code ExportRunawayReport} with a JSON request (see {@link #exportRunawayReport(Map)}).
   *
   * @param requestJson the request as a JSON object
   * @return the response payload
   */
  default Map<String, Object> exportRunawayReport(String requestJson) {
    return call("ExportRunawayReport", requestJson);
  }

  /**
   * {@code StagePolicyBundle}: stages a signed or unsigned policy bundle (a refused one is {@code
   * accepted: false}).
   *
   * @param request the request in protocol field names
   * @return the response payload
   */
  default Map<String, Object> stagePolicyBundle(Map<String, ?> request) {
    return call("StagePolicyBundle", request);
  }

  /**
   * {@code StagePolicyBundle} with a JSON request (see {@link #stagePolicyBundle(Map)}).
   *
   * @param requestJson the request as a JSON object
   * @return the response payload
   */
  default Map<String, Object> stagePolicyBundle(String requestJson) {
    return call("StagePolicyBundle", requestJson);
  }

  /**
   * {@code ActivatePolicy}: activates a staged policy.
   *
   * @param request the request in protocol field names
   * @return the response payload
   */
  default Map<String, Object> activatePolicy(Map<String, ?> request) {
    return call("ActivatePolicy", request);
  }

  /**
   * {@code ActivatePolicy} with a JSON request (see {@link #activatePolicy(Map)}).
   *
   * @param requestJson the request as a JSON object
   * @return the response payload
   */
  default Map<String, Object> activatePolicy(String requestJson) {
    return call("ActivatePolicy", requestJson);
  }

  /**
   * {@code RequestToolSubLease}: a tool sub-lease under a granted lease.
   *
   * @param request the request in protocol field names
   * @return the response payload
   */
  default Map<String, Object> requestToolSubLease(Map<String, ?> request) {
    return call("RequestToolSubLease", request);
  }

  /**
   * {@code RequestToolSubLease} with a JSON request (see {@link #requestToolSubLease(Map)}).
   *
   * @param requestJson the request as a JSON object
   * @return the response payload
   */
  default Map<String, Object> requestToolSubLease(String requestJson) {
    return call("RequestToolSubLease", requestJson);
  }

  /**
   * {@code ExecuteToolCall}: authorizes a tool call against its sub-lease and accounts for it.
   *
   * @param request the request in protocol field names
   * @return the response payload
   */
  default Map<String, Object> executeToolCall(Map<String, ?> request) {
    return call("ExecuteToolCall", request);
  }

  /**
   * {@code ExecuteToolCall} with a JSON request (see {@link #executeToolCall(Map)}).
   *
   * @param requestJson the request as a JSON object
   * @return the response payload
   */
  default Map<String, Object> executeToolCall(String requestJson) {
    return call("ExecuteToolCall", requestJson);
  }

  /**
   * {@code Authorize}: a capability and target against a granted lease's effective lease.
   *
   * @param request the request in protocol field names
   * @return the response payload
   */
  default Map<String, Object> authorize(Map<String, ?> request) {
    return call("Authorize", request);
  }

  /**
   * {@code Authorize} with a JSON request (see {@link #authorize(Map)}).
   *
   * @param requestJson the request as a JSON object
   * @return the response payload
   */
  default Map<String, Object> authorize(String requestJson) {
    return call("Authorize", requestJson);
  }

  /**
   * {@code ExportAudit}: audit records ({@code fromLine}/{@code toLine}, 1-based, inclusive; none:
   * the whole chain) as {@code {records: [...], nextLine?}}: at most 10 000 per call, {@code
   * nextLine} when more remain (admin uids behind the daemon).
   *
   * @param request the request in protocol field names
   * @return the response payload
   */
  default Map<String, Object> exportAudit(Map<String, ?> request) {
    return call("ExportAudit", request);
  }

  /**
   * {@code ExportAudit} with a JSON request (see {@link #exportAudit(Map)}).
   *
   * @param requestJson the request as a JSON object
   * @return the response payload
   */
  default Map<String, Object> exportAudit(String requestJson) {
    return call("ExportAudit", requestJson);
  }

  /**
   * {@code ExportAudit} with an empty request (see {@link #exportAudit(Map)}).
   *
   * @return the response payload
   */
  default Map<String, Object> exportAudit() {
    return call("ExportAudit", (String) null);
  }

  /**
   * {@code VerifyAudit}: verifies the store's audit chain (or the given {@code records}): {@code
   * ok}, {@code records}, {@code firstBadLine} (admin uids behind the daemon).
   *
   * @param request the request in protocol field names
   * @return the response payload
   */
  default Map<String, Object> verifyAudit(Map<String, ?> request) {
    return call("VerifyAudit", request);
  }

  /**
   * {@code VerifyAudit} with a JSON request (see {@link #verifyAudit(Map)}).
   *
   * @param requestJson the request as a JSON object
   * @return the response payload
   */
  default Map<String, Object> verifyAudit(String requestJson) {
    return call("VerifyAudit", requestJson);
  }

  /**
   * {@code VerifyAudit} with an empty request (see {@link #verifyAudit(Map)}).
   *
   * @return the response payload
   */
  default Map<String, Object> verifyAudit() {
    return call("VerifyAudit", (String) null);
  }

  /**
   * {@code RollbackPolicy}: re-activates an earlier activated policy by its {@code version} (an
   * unknown version is {@code activated: false}).
   *
   * @param request the request in protocol field names
   * @return the response payload
   */
  default Map<String, Object> rollbackPolicy(Map<String, ?> request) {
    return call("RollbackPolicy", request);
  }

  /**
   * {@code RollbackPolicy} with a JSON request (see {@link #rollbackPolicy(Map)}).
   *
   * @param requestJson the request as a JSON object
   * @return the response payload
   */
  default Map<String, Object> rollbackPolicy(String requestJson) {
    return call("RollbackPolicy", requestJson);
  }

  /**
   * {@code RecordDecision}: appends a guard's decision (allowed, denied, by which rule) to the
   * audit chain as this caller's {@code guard_decision} record.
   *
   * @param request the request in protocol field names
   * @return the response payload
   */
  default Map<String, Object> recordDecision(Map<String, ?> request) {
    return call("RecordDecision", request);
  }

  /**
   * {@code RecordDecision} with a JSON request (see {@link #recordDecision(Map)}).
   *
   * @param requestJson the request as a JSON object
   * @return the response payload
   */
  default Map<String, Object> recordDecision(String requestJson) {
    return call("RecordDecision", requestJson);
  }
  // END generated
}

// Test-only stand-in: the ARCP Java SDK (agentruntimecontrolprotocol/java-sdk) is not published
// to a Maven repository, so the tests reproduce the published signature of this class (name,
// hierarchy, constructor) to exercise leasekit's reflective lookup. Not the SDK's code.
package dev.arcp.core.error;

/** Stand-in of the SDK's code enum: the fifteen ARCP codes and their retryable flags. */
public enum ErrorCode {
  PERMISSION_DENIED(false),
  LEASE_SUBSET_VIOLATION(false),
  JOB_NOT_FOUND(false),
  DUPLICATE_KEY(false),
  AGENT_NOT_AVAILABLE(false),
  AGENT_VERSION_NOT_AVAILABLE(false),
  CANCELLED(false),
  TIMEOUT(true),
  RESUME_WINDOW_EXPIRED(false),
  HEARTBEAT_LOST(true),
  LEASE_EXPIRED(false),
  BUDGET_EXHAUSTED(false),
  INVALID_REQUEST(false),
  UNAUTHENTICATED(false),
  INTERNAL_ERROR(true);

  private final boolean retryable;

  ErrorCode(boolean retryable) {
    this.retryable = retryable;
  }

  public boolean retryable() {
    return retryable;
  }
}

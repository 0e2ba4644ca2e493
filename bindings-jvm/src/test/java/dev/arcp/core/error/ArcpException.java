// Test-only stand-in: the ARCP Java SDK (agentruntimecontrolprotocol/java-sdk) is not published
// to a Maven repository, so the tests reproduce the published signature of this class (name,
// hierarchy, constructor) to exercise leasekit's reflective lookup. Not the SDK's code.
package dev.arcp.core.error;

/**
 * Stand-in of the SDK's checked, sealed base class. Like the SDK's, its constructor passes a null
 * cause to {@link Exception#Exception(String, Throwable)}, so {@code initCause} later fails.
 */
public abstract sealed class ArcpException extends Exception
    permits RetryableArcpException, NonRetryableArcpException {
  private static final long serialVersionUID = 1L;

  private final ErrorCode code;

  protected ArcpException(ErrorCode code, String message) {
    super(message, null);
    this.code = code;
  }

  public ErrorCode code() {
    return code;
  }

  public abstract boolean retryable();
}

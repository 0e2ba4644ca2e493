// Test-only stand-in: the ARCP Java SDK (agentruntimecontrolprotocol/java-sdk) is not published
// to a Maven repository, so the tests reproduce the published signature of this class (name,
// hierarchy, constructor) to exercise leasekit's reflective lookup. Not the SDK's code.
package dev.arcp.core.error;

/** Stand-in of the SDK's retryable branch of {@link ArcpException}. */
public abstract non-sealed class RetryableArcpException extends ArcpException {
  private static final long serialVersionUID = 1L;

  protected RetryableArcpException(ErrorCode code, String message) {
    super(code, message);
  }

  @Override
  public final boolean retryable() {
    return true;
  }
}

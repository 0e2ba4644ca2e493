// Test-only stand-in: the ARCP Java SDK (agentruntimecontrolprotocol/java-sdk) is not published
// to a Maven repository, so the tests reproduce the published signature of this class (name,
// hierarchy, constructor) to exercise leasekit's reflective lookup. Not the SDK's code.
package dev.arcp.core.error;

/** Stand-in of the SDK's exception for {@code INTERNAL_ERROR}. */
public final class InternalErrorException extends RetryableArcpException {
  private static final long serialVersionUID = 1L;

  public InternalErrorException(String message) {
    super(ErrorCode.INTERNAL_ERROR, message);
  }
}

// Test-only stand-in: the ARCP Java SDK (agentruntimecontrolprotocol/java-sdk) is not published
// to a Maven repository, so the tests reproduce the published signature of this class (name,
// hierarchy, constructor) to exercise leasekit's reflective lookup. Not the SDK's code.
package dev.arcp.core.error;

/** Stand-in of the SDK's exception for {@code INVALID_REQUEST}. */
public final class InvalidRequestException extends NonRetryableArcpException {
  private static final long serialVersionUID = 1L;

  public InvalidRequestException(String message) {
    super(ErrorCode.INVALID_REQUEST, message);
  }
}

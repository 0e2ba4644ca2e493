package dev.leasekit;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * An ARCP error raised by leasekit: a stable {@link #code()}, whether it is {@link #retryable()},
 * and structured {@link #details()}. Each code has its own subclass (for example {@link
 * PermissionDeniedException}, {@link LeaseSubsetViolationException}, {@link LeaseExpiredException},
 * {@link BudgetExhaustedException}, {@link InvalidRequestException}), so callers can catch exactly
 * what they handle. Messages are for humans; compare codes, never messages.
 */
public class LeaseException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final ErrorCode code;
  private final transient Map<String, Object> details;

  /**
   * Creates an exception; prefer the subclass of the code (see {@link #of}).
   *
   * @param code the ARCP code
   * @param message a human-readable message
   * @param details structured details (copied; {@code null} means none)
   */
  protected LeaseException(ErrorCode code, String message, Map<String, ?> details) {
    super(message);
    this.code = Objects.requireNonNull(code, "code");
    this.details =
        details == null || details.isEmpty()
            ? Map.of()
            : Collections.unmodifiableMap(new LinkedHashMap<>(details));
  }

  /**
   * The stable ARCP code.
   *
   * @return the code
   */
  public ErrorCode code() {
    return code;
  }

  /**
   * Whether the failed operation may be retried unchanged (fixed per code).
   *
   * @return {@code code().retryable()}
   */
  public boolean retryable() {
    return code.retryable();
  }

  /**
   * Structured details, e.g. {@code capability}, {@code pattern} and {@code witness} of a subset
   * violation. Values are strings, booleans, {@link java.math.BigDecimal}s or integers, lists and
   * maps.
   *
   * @return an unmodifiable map, empty when there are none
   */
  public Map<String, Object> details() {
    return details == null ? Map.of() : details;
  }

  /**
   * Creates the subclass of {@code code}.
   *
   * @param code the ARCP code
   * @param message a human-readable message
   * @param details structured details
   * @return for example a {@link PermissionDeniedException} for {@link ErrorCode#PERMISSION_DENIED}
   */
  public static LeaseException of(ErrorCode code, String message, Map<String, ?> details) {
    return switch (code) {
        // BEGIN generated (scripts/gen-error-tables.py)
      case PERMISSION_DENIED -> new PermissionDeniedException(message, details);
      case LEASE_SUBSET_VIOLATION -> new LeaseSubsetViolationException(message, details);
      case LEASE_EXPIRED -> new LeaseExpiredException(message, details);
      case BUDGET_EXHAUSTED -> new BudgetExhaustedException(message, details);
      case INVALID_REQUEST -> new InvalidRequestException(message, details);
      case UNAUTHENTICATED -> new UnauthenticatedException(message, details);
      case JOB_NOT_FOUND -> new JobNotFoundException(message, details);
      case DUPLICATE_KEY -> new DuplicateKeyException(message, details);
      case AGENT_NOT_AVAILABLE -> new AgentNotAvailableException(message, details);
      case AGENT_VERSION_NOT_AVAILABLE -> new AgentVersionNotAvailableException(message, details);
      case CANCELLED -> new CancelledException(message, details);
      case TIMEOUT -> new TimeoutException(message, details);
      case RESUME_WINDOW_EXPIRED -> new ResumeWindowExpiredException(message, details);
      case HEARTBEAT_LOST -> new HeartbeatLostException(message, details);
      case INTERNAL_ERROR -> new InternalErrorException(message, details);
        // END generated
    };
  }

  /**
   * Builds the exception for a native error, {@code {"code","message","retryable","details"}}.
   * Called from Rust (the JNI error policy) right before the exception is thrown.
   *
   * @param json the error as JSON text
   * @return the exception to throw; an {@link InternalErrorException} when the JSON is unusable
   */
  static LeaseException fromNative(String json) {
    try {
      JsonNode node = Json.parse(json);
      String message = node.path("message").asText("");
      ErrorCode code = ErrorCode.parse(node.path("code").asText()).orElse(null);
      if (code == null) {
        return new InternalErrorException("unknown native error: " + json);
      }
      return of(code, message, Json.toMap(node.path("details")));
    } catch (RuntimeException e) {
      return new InternalErrorException("unreadable native error: " + json);
    }
  }

  @Override
  public String toString() {
    return getClass().getName() + ": " + code + ": " + getMessage();
  }
}

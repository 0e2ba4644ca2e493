package dev.leasekit;

import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Enforces a lease at run time: {@link #authorize}, {@link #authorizeModel}, budget spending and
 * reservations, and delegation to child guards whose lease must be a subset.
 *
 * <p>Checks run in ARCP order: expiry ({@link LeaseExpiredException}), budget ({@link
 * BudgetExhaustedException}), names and target canonicalization ({@link InvalidRequestException}),
 * then the patterns ({@link PermissionDeniedException}). Time comes from the injectable {@link
 * Clock} (read once per call). On the system clock (the default) the native side reads the system
 * time itself, and only when the lease has a deadline.
 *
 * <p>Thread-safe: any number of threads may use one guard, without locking; spending never loses an
 * update. {@link #close()} ends the guard at once (later calls throw {@link
 * LeaseExpiredException}); its native memory is freed by a Cleaner once the guard is unreachable,
 * so that no call, even one racing with close, can run on freed memory. Closing a child guard also
 * returns its unspent budget to the parent; an unclosed child returns it later, when the Cleaner
 * frees it (the core closes a dropped child). Close children explicitly to return budget promptly.
 *
 * <pre>{@code
 * try (LeaseGuard guard = LeaseGuard.of(lease)) {
 *   String url = guard.authorize("net.fetch", "https://api.example.com/data");
 *   guard.recordMetric("cost.llm", new BigDecimal("0.30"), "USD");
 * }
 * }</pre>
 */
public final class LeaseGuard implements AutoCloseable {
  /** The {@code nano} passed instead of an instant when the native guard reads the clock itself. */
  private static final int NO_TIME = -1;

  /** The class of {@link Clock#systemUTC()} (and of every other {@code Clock.system(zone)}). */
  private static final Class<?> SYSTEM_CLOCK_CLASS = Clock.systemUTC().getClass();

  private final NativeHandle handle;
  private final Clock clock;
  private final Lease lease;

  /**
   * Whether the native guard was built on the core's system clock: calls then pass no instant
   * ({@link #NO_TIME}). Otherwise every call passes {@code clock.instant()}.
   */
  private final boolean systemTime;

  private LeaseGuard(long nativeHandle, Clock clock, boolean systemTime, Lease lease) {
    this.handle = new NativeHandle(nativeHandle);
    this.clock = clock;
    this.systemTime = systemTime;
    this.lease = lease;
  }

  /**
   * Whether {@code clock} is the JDK's system clock (any zone: the instant is the same), which the
   * native side can read itself. A fixed, offset or custom clock is not.
   */
  static boolean readsSystemTime(Clock clock) {
    return clock.getClass() == SYSTEM_CLOCK_CLASS;
  }

  /** The instant to pass to a native call, or {@code null} for "read the system clock". */
  private Instant now() {
    return systemTime ? null : clock.instant();
  }

  private static long epochSecond(Instant now) {
    return now == null ? 0 : now.getEpochSecond();
  }

  private static int nano(Instant now) {
    return now == null ? NO_TIME : now.getNano();
  }

  /**
   * A guard over a lease and its constraints, on the system UTC clock.
   *
   * @param lease the lease to enforce
   * @return the guard
   */
  public static LeaseGuard of(Lease lease) {
    return builder(lease).build();
  }

  /**
   * Starts configuring a guard.
   *
   * @param lease the lease to enforce (its constraints are used unless replaced)
   * @return a builder
   */
  public static Builder builder(Lease lease) {
    return new Builder(lease);
  }

  /**
   * Authorizes an operation on a target.
   *
   * @param capability the capability (namespace), e.g. {@code "fs.read"}
   * @param target the path, URL, tool name, agent name or model id
   * @return the canonical target; perform the operation on exactly this value
   * @throws LeaseExpiredException at or after the deadline
   * @throws BudgetExhaustedException once any budget counter is at or below zero
   * @throws InvalidRequestException for an unknown capability or a malformed target
   * @throws PermissionDeniedException when no pattern matches
   */
  public String authorize(String capability, String target) {
    Objects.requireNonNull(capability, "capability");
    Objects.requireNonNull(target, "target");
    Instant now = now();
    String canonical =
        handle.call(
            h ->
                Native.guardAuthorize(
                    h,
                    epochSecond(now),
                    nano(now),
                    capability,
                    ReservedCapabilities.code(capability),
                    capability.length(),
                    target,
                    target.length()));
    // null: the target is already canonical, so the answer is the caller's own string.
    return canonical == null ? target : canonical;
  }

  /**
   * Authorizes the use of a model ({@code model.use}); without that capability every model is
   * denied unless the guard was built with {@link Builder#allowAnyModel(boolean)}.
   *
   * @param modelId the model id, e.g. {@code "claude-3-5-sonnet-20241022"}
   * @return the model id as authorized
   * @throws PermissionDeniedException when the model is not granted (and as {@link #authorize})
   */
  public String authorizeModel(String modelId) {
    Objects.requireNonNull(modelId, "modelId");
    Instant now = now();
    String canonical =
        handle.call(
            h ->
                Native.guardAuthorizeModel(
                    h, epochSecond(now), nano(now), modelId, modelId.length()));
    return canonical == null ? modelId : canonical;
  }

  /**
   * Records a metric. A metric named {@code cost.*} (not {@code cost.budget.*}) whose unit is a
   * budgeted currency spends that budget; others are ignored. Spending is always recorded, even
   * when expired or exhausted; the counter may go below zero.
   *
   * @param name the metric name, e.g. {@code "cost.llm"}
   * @param value a non-negative exact value
   * @param unit the unit, e.g. {@code "USD"}
   * @return {@code cost.budget.remaining} metrics emitted by this spend (at each further 5 %)
   * @throws InvalidRequestException for a negative or malformed value
   */
  public List<Metric> recordMetric(String name, BigDecimal value, String unit) {
    return recordMetric(name, Json.amountText(value), unit);
  }

  /**
   * Records a metric whose value is decimal text as it arrived on the wire (for example from an
   * ARCP metric event). Only spending metrics parse it: a malformed value of a {@code cost.*}
   * metric in a budgeted currency is {@link InvalidRequestException} (nothing changes), other
   * metrics are ignored whatever their value.
   *
   * @param name the metric name
   * @param value the value as decimal text, e.g. {@code "0.30"}
   * @param unit the unit
   * @return the emitted metrics
   * @throws InvalidRequestException for a negative or malformed spending value
   */
  public List<Metric> recordMetric(String name, String value, String unit) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(value, "value");
    Objects.requireNonNull(unit, "unit");
    Instant now = now();
    String emitted =
        handle.call(
            h -> Native.guardRecordMetric(h, epochSecond(now), nano(now), name, value, unit));
    return Json.metrics(emitted);
  }

  /**
   * Reserves budget ahead of spending: succeeds only if the counter stays at or above zero,
   * atomically.
   *
   * @param currency a budgeted currency
   * @param amount the amount to reserve
   * @return the remaining metrics emitted by the reservation
   * @throws BudgetExhaustedException if the amount does not fit (nothing changes)
   * @throws InvalidRequestException if the currency is not budgeted or the amount is malformed
   */
  public List<Metric> reserve(String currency, BigDecimal amount) {
    Objects.requireNonNull(currency, "currency");
    String amountText = Json.amountText(amount);
    Instant now = now();
    String emitted =
        handle.call(h -> Native.guardReserve(h, epochSecond(now), nano(now), currency, amountText));
    return Json.metrics(emitted);
  }

  /**
   * The remaining amount of every budgeted currency (negative after an overspend).
   *
   * @return an unmodifiable, sorted map
   */
  public Map<String, BigDecimal> remaining() {
    return Json.amounts(handle.call(Native::guardRemaining));
  }

  /** Whether some budget counter is at or below zero (core's decision; see BudgetCounters). */
  boolean isExhausted() {
    return handle.call(Native::guardIsExhausted);
  }

  /**
   * The budget counters of this guard.
   *
   * @return a view that spends from and reads this guard's counters
   */
  public BudgetCounters budget() {
    return new BudgetCounters(this);
  }

  /**
   * Delegates to a child lease (ARCP section 10). The child must be a subset of this guard's lease:
   * every pattern within the parent's, budgets within the parent's remaining amounts, the deadline
   * no later than the parent's (an omitted child deadline inherits it). The child's budget is
   * reserved from this guard at once.
   *
   * @param child the child lease; its constraints are the child's constraints
   * @return a guard for the child, on the same clock
   * @throws LeaseSubsetViolationException if the child is not a subset (details name the
   *     capability, the child pattern and a witness)
   */
  public LeaseGuard delegate(Lease child) {
    Objects.requireNonNull(child, "child");
    Instant now = now();
    String childJson = child.toJson();
    String childConstraints = child.constraints().toJson();
    long childHandle =
        handle.call(
            h -> Native.guardDelegate(h, epochSecond(now), nano(now), childJson, childConstraints));
    // The core child shares this guard's clock, so it reads the system time exactly when we do.
    return new LeaseGuard(childHandle, clock, systemTime, child);
  }

  /**
   * The lease this guard enforces (canonical patterns, without constraints).
   *
   * @return the lease
   */
  public Lease lease() {
    return lease;
  }

  /**
   * The effective deadline (a child's inherited one included).
   *
   * @return the deadline, if any
   */
  public Optional<Instant> expiresAt() {
    String nanos = handle.call(Native::guardExpiresAt);
    return nanos == null ? Optional.empty() : Optional.of(Times.fromNanos(nanos));
  }

  /**
   * The clock this guard reads.
   *
   * @return the clock
   */
  public Clock clock() {
    return clock;
  }

  /**
   * Whether {@link #close()} ran.
   *
   * @return {@code true} once closed
   */
  public boolean isClosed() {
    return handle.isReleased();
  }

  /**
   * Closes the guard and reports the metrics emitted by returning a child's unspent budget to its
   * parent. Idempotent (later calls return an empty list).
   *
   * @return the emitted metrics
   */
  public List<Metric> closeAndReport() {
    String[] emitted = {"[]"};
    handle.release(h -> emitted[0] = Native.guardClose(h));
    return Json.metrics(emitted[0]);
  }

  /**
   * Closes the guard (returning a child's unspent budget to its parent). Idempotent; any later call
   * fails with {@link LeaseExpiredException}. The native memory is freed once the guard is
   * unreachable.
   */
  @Override
  public void close() {
    closeAndReport();
  }

  /** Configures a {@link LeaseGuard}. Not thread-safe. */
  public static final class Builder {
    private final Lease lease;
    private LeaseConstraints constraints;
    private Clock clock = Clock.systemUTC();
    private Duration grace = Duration.ZERO;
    private boolean allowAnyModel;

    private Builder(Lease lease) {
      this.lease = Objects.requireNonNull(lease, "lease");
      this.constraints = lease.constraints();
    }

    /**
     * Replaces the lease's constraints.
     *
     * @param constraints the constraints to enforce
     * @return this builder
     */
    public Builder constraints(LeaseConstraints constraints) {
      this.constraints = Objects.requireNonNull(constraints, "constraints");
      return this;
    }

    /**
     * Sets the clock (default {@link Clock#systemUTC()}); tests inject a fixed or manual clock.
     *
     * @param clock the clock
     * @return this builder
     */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Sets the grace period after {@code expires_at} (default zero), in whole milliseconds.
     *
     * @param grace a non-negative duration
     * @return this builder
     */
    public Builder grace(Duration grace) {
      Objects.requireNonNull(grace, "grace");
      if (grace.isNegative()) {
        throw new InvalidRequestException("grace must not be negative");
      }
      this.grace = grace;
      return this;
    }

    /**
     * Lets {@link LeaseGuard#authorizeModel} allow any model when the lease has no {@code
     * model.use} (default {@code false}: denied).
     *
     * @param allow whether to allow any model
     * @return this builder
     */
    public Builder allowAnyModel(boolean allow) {
      this.allowAnyModel = allow;
      return this;
    }

    /**
     * Creates the guard. The deadline is not checked against now here (see {@link
     * LeaseConstraints#validate(Clock)} for submit-time validation); operations after it fail.
     *
     * @return the guard
     */
    public LeaseGuard build() {
      boolean systemTime = readsSystemTime(clock);
      long h =
          Native.guardNew(
              lease.toJson(), constraints.toJson(), grace.toMillis(), allowAnyModel, systemTime);
      return new LeaseGuard(h, clock, systemTime, lease.withConstraints(constraints));
    }
  }
}

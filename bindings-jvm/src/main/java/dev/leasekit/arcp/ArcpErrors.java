package dev.leasekit.arcp;

import dev.leasekit.ErrorCode;
import dev.leasekit.LeaseException;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Turns leasekit's errors into the ARCP Java SDK's exceptions, so that a runtime built on the SDK
 * ({@code catch (dev.arcp.core.error.PermissionDeniedException e)}, {@code catch (ArcpException
 * e)}) sees the real ARCP code instead of a foreign exception it reports as a retryable {@code
 * INTERNAL_ERROR}.
 *
 * <p>The SDK is found at run time, by reflection: for a {@link LeaseException} of code {@code
 * PERMISSION_DENIED} the class {@code dev.arcp.core.error.PermissionDeniedException} is looked up
 * (see {@link #standard()} and {@link #using(ClassLoader)} for where) and must have the SDK's
 * shape: a concrete {@link Exception} below {@code dev.arcp.core.error.ArcpException} with a public
 * {@code (String message)} constructor whose {@code code()} and {@code retryable()} match. When
 * there is no such class (the SDK is not on the class path, or a class of that name has another
 * shape), the leasekit exception itself is used. Lookups are cached per class loader.
 *
 * <p>The SDK's exceptions are checked ({@code extends Exception}) and this library does not compile
 * against the SDK, so no signature here can name them: {@link #rethrow} throws them without
 * declaring them (a checked exception thrown through a generic cast). Code that calls leasekit
 * inside a method declared like the SDK's ({@code throws PermissionDeniedException, ...}, or {@code
 * Agent.run}'s {@code throws Exception}) catches them as usual.
 *
 * <p>An SDK exception carries leasekit's message and stack trace; the SDK fixes its cause at
 * construction, so the leasekit exception (with its {@link LeaseException#details()}) is attached
 * as a suppressed exception: {@link #leasekitException(Throwable)} finds it.
 *
 * <pre>{@code
 * ArcpErrors errors = ArcpErrors.standard();
 * String path = errors.call(() -> guard.authorize("fs.read", target)); // SDK exceptions if present
 * }</pre>
 */
public final class ArcpErrors {
  private static final ArcpErrors STANDARD = new ArcpErrors(null);

  /** How deep {@link #leasekitException} looks through causes and suppressed exceptions. */
  private static final int MAX_DEPTH = 8;

  /** The only loader to search, or {@code null}: the thread's context loader, then leasekit's. */
  private final ClassLoader loader;

  private ArcpErrors(ClassLoader loader) {
    this.loader = loader;
  }

  /**
   * Looks for the SDK in the calling thread's context class loader, then in the loader of
   * leasekit's classes (the first with a class of the right shape wins).
   *
   * @return the shared standard translator
   */
  public static ArcpErrors standard() {
    return STANDARD;
  }

  /**
   * Looks for the SDK in {@code loader} only (for a runtime whose SDK lives in a loader that is
   * neither the context loader nor leasekit's; a loader without the SDK gives leasekit's
   * exceptions).
   *
   * @param loader where the SDK's classes are
   * @return a translator bound to that loader
   */
  public static ArcpErrors using(ClassLoader loader) {
    return new ArcpErrors(Objects.requireNonNull(loader, "loader"));
  }

  /**
   * The SDK's exception class for a code, as this translator would use it.
   *
   * @param code the ARCP code
   * @return the class, or empty when no SDK class of the right shape is visible
   */
  public Optional<Class<? extends Exception>> sdkType(ErrorCode code) {
    Objects.requireNonNull(code, "code");
    for (ClassLoader l : loaders()) {
      Class<? extends Exception> type = SdkExceptionTypes.find(l, code);
      if (type != null) {
        return Optional.of(type);
      }
    }
    return Optional.empty();
  }

  /**
   * The exception to throw for a leasekit error: the SDK's exception of the same code (message and
   * stack trace copied, the leasekit exception attached), or {@code error} itself without the SDK.
   *
   * @param error a leasekit error
   * @return the SDK's exception, or {@code error}
   */
  public Exception translate(LeaseException error) {
    Objects.requireNonNull(error, "error");
    for (ClassLoader l : loaders()) {
      Class<? extends Exception> type = SdkExceptionTypes.find(l, error.code());
      Exception sdk = type == null ? null : SdkExceptionTypes.instantiate(type, error.getMessage());
      if (sdk != null) {
        attach(sdk, error);
        return sdk;
      }
    }
    return error;
  }

  /**
   * Throws {@link #translate translate(error)}, a checked SDK exception included, without declaring
   * it. Write {@code throw errors.rethrow(e);} so the compiler knows the call does not return.
   *
   * @param error a leasekit error
   * @return never returns
   */
  public RuntimeException rethrow(LeaseException error) {
    throw ArcpErrors.<RuntimeException>sneakyThrow(translate(error));
  }

  /**
   * Runs {@code action}, throwing any {@link LeaseException} it throws as {@link #rethrow} does.
   *
   * @param action a call into leasekit
   * @param <T> the result type
   * @return the action's result
   */
  public <T> T call(Supplier<T> action) {
    Objects.requireNonNull(action, "action");
    try {
      return action.get();
    } catch (LeaseException e) {
      throw rethrow(e);
    }
  }

  /**
   * Runs {@code action}, throwing any {@link LeaseException} it throws as {@link #rethrow} does.
   *
   * @param action a call into leasekit
   */
  public void run(Runnable action) {
    Objects.requireNonNull(action, "action");
    try {
      action.run();
    } catch (LeaseException e) {
      throw rethrow(e);
    }
  }

  /**
   * The leasekit exception behind an exception: itself, or one reached through its suppressed
   * exceptions (where {@link #translate} attaches it) or its causes.
   *
   * @param thrown any throwable, for example an SDK exception caught by a runtime
   * @return the leasekit exception with its code and details, if there is one
   */
  public static Optional<LeaseException> leasekitException(Throwable thrown) {
    return Optional.ofNullable(search(thrown, 0));
  }

  private static LeaseException search(Throwable t, int depth) {
    if (t == null || depth > MAX_DEPTH) {
      return null;
    }
    if (t instanceof LeaseException e) {
      return e;
    }
    for (Throwable s : t.getSuppressed()) {
      LeaseException found = search(s, depth + 1);
      if (found != null) {
        return found;
      }
    }
    return t.getCause() == t ? null : search(t.getCause(), depth + 1);
  }

  private ClassLoader[] loaders() {
    if (loader != null) {
      return new ClassLoader[] {loader};
    }
    ClassLoader ours = ArcpErrors.class.getClassLoader();
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    if (context == null || context == ours) {
      return ours == null ? new ClassLoader[0] : new ClassLoader[] {ours};
    }
    return ours == null ? new ClassLoader[] {context} : new ClassLoader[] {context, ours};
  }

  /**
   * Keeps {@code error} reachable from {@code sdk}: as its cause where the class allows it (the
   * SDK's constructors fix a {@code null} cause), otherwise as a suppressed exception.
   */
  private static void attach(Exception sdk, LeaseException error) {
    sdk.setStackTrace(error.getStackTrace());
    try {
      sdk.initCause(error);
      return;
    } catch (RuntimeException e) {
      // The cause was set by the constructor: fall through to the suppressed list.
    }
    try {
      sdk.addSuppressed(error);
    } catch (RuntimeException e) {
      // A class that refuses both still carries the code and the message.
    }
  }

  @SuppressWarnings("unchecked")
  private static <T extends Throwable> RuntimeException sneakyThrow(Throwable t) throws T {
    throw (T) t;
  }
}

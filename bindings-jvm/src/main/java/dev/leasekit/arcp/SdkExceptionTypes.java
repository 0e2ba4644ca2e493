package dev.leasekit.arcp;

import dev.leasekit.ErrorCode;
import java.lang.ref.WeakReference;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Finds the ARCP Java SDK's exception class of each code in a class loader, by name ({@code
 * dev.arcp.core.error.PermissionDeniedException} for {@code PERMISSION_DENIED}), and checks its
 * shape once: a public, concrete {@link Exception} below a class named {@code
 * dev.arcp.core.error.ArcpException}, with a public {@code (String)} constructor, whose instances
 * report the same {@code code()} (an enum constant of the same name) and {@code retryable()} flag.
 * A class of that name with any other shape counts as absent.
 *
 * <p>Answers are cached per class loader (weakly: a cached loader can still be unloaded) and per
 * code, the absence of a class included, so a denial never repeats a failed class lookup.
 */
final class SdkExceptionTypes {
  /** The package of the SDK's exceptions. */
  static final String PACKAGE = "dev.arcp.core.error.";

  /** The SDK's base class, which every exception class must extend. */
  static final String BASE = PACKAGE + "ArcpException";

  /** Cache entry of a code whose class is absent or of the wrong shape in a loader. */
  private static final Object ABSENT = new Object();

  private static final int CODES = ErrorCode.values().length;

  /**
   * Per loader: per code ordinal, {@code null} (not looked up yet), {@link #ABSENT}, or a {@link
   * WeakReference} to the class (never a strong one: the value must not keep its key alive).
   */
  private static final Map<ClassLoader, AtomicReferenceArray<Object>> CACHE =
      Collections.synchronizedMap(new WeakHashMap<>());

  private SdkExceptionTypes() {}

  /**
   * The SDK's exception class of {@code code} in {@code loader}, or {@code null} when that loader
   * has none of the right shape.
   */
  static Class<? extends Exception> find(ClassLoader loader, ErrorCode code) {
    AtomicReferenceArray<Object> entries =
        CACHE.computeIfAbsent(loader, l -> new AtomicReferenceArray<>(CODES));
    Object entry = entries.get(code.ordinal());
    if (entry == ABSENT) {
      return null;
    }
    if (entry instanceof WeakReference<?> ref && ref.get() instanceof Class<?> cls) {
      return cls.asSubclass(Exception.class);
    }
    Class<? extends Exception> found = resolve(loader, code);
    entries.set(code.ordinal(), found == null ? ABSENT : new WeakReference<>(found));
    return found;
  }

  /**
   * A new instance of {@code type} with {@code message}, or {@code null} when its constructor fails
   * (a class of the wrong shape never crashes the caller).
   */
  static Exception instantiate(Class<? extends Exception> type, String message) {
    try {
      return type.getConstructor(String.class).newInstance(message);
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      return null;
    }
  }

  /** The simple class name of a code: {@code PERMISSION_DENIED} is {@code PermissionDenied...}. */
  static String className(ErrorCode code) {
    StringBuilder name = new StringBuilder(PACKAGE);
    for (String word : code.name().split("_")) {
      name.append(word.charAt(0)).append(word.substring(1).toLowerCase(java.util.Locale.ROOT));
    }
    return name.append("Exception").toString();
  }

  private static Class<? extends Exception> resolve(ClassLoader loader, ErrorCode code) {
    Class<?> cls;
    try {
      cls = Class.forName(className(code), false, loader);
    } catch (ClassNotFoundException | LinkageError e) {
      return null;
    }
    int modifiers = cls.getModifiers();
    if (!Exception.class.isAssignableFrom(cls)
        || !Modifier.isPublic(modifiers)
        || Modifier.isAbstract(modifiers)
        || !extendsBase(cls)) {
      return null;
    }
    Class<? extends Exception> type = cls.asSubclass(Exception.class);
    Exception probe = instantiate(type, code.name());
    return probe != null && reports(probe, code) ? type : null;
  }

  private static boolean extendsBase(Class<?> cls) {
    for (Class<?> c = cls.getSuperclass(); c != null; c = c.getSuperclass()) {
      if (c.getName().equals(BASE)) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code probe.code()} names {@code code} and {@code probe.retryable()} agrees. */
  private static boolean reports(Exception probe, ErrorCode code) {
    try {
      Method codeMethod = probe.getClass().getMethod("code");
      Method retryableMethod = probe.getClass().getMethod("retryable");
      if (retryableMethod.getReturnType() != boolean.class) {
        return false;
      }
      Object reported = codeMethod.invoke(probe);
      Object retryable = retryableMethod.invoke(probe);
      return reported instanceof Enum<?> e
          && e.name().equals(code.name())
          && Boolean.valueOf(code.retryable()).equals(retryable);
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      return false;
    }
  }
}

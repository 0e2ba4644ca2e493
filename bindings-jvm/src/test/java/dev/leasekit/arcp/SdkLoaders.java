package dev.leasekit.arcp;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Class loaders for the lookup tests. The test class path holds stand-ins of the SDK's exception
 * classes ({@code src/test/java/dev/arcp/core/error/}, reproducing the published signatures: the
 * SDK is not published to a Maven repository). These loaders show the other two cases: no SDK at
 * all, and classes named like the SDK's but of another shape.
 */
final class SdkLoaders {
  private static ClassLoader wrongShape;

  private SdkLoaders() {}

  /** A loader that sees only the JDK: the SDK is absent. */
  static ClassLoader withoutSdk() {
    return new URLClassLoader(new URL[0], ClassLoader.getPlatformClassLoader());
  }

  /** Errors that find no SDK. */
  static ArcpErrors absent() {
    return ArcpErrors.using(withoutSdk());
  }

  /**
   * A loader (over the JDK only) whose {@code dev.arcp.core.error} classes carry the SDK's names
   * but the wrong shape, compiled here from source.
   */
  static synchronized ClassLoader wrongShape() {
    if (wrongShape == null) {
      wrongShape = compile(WRONG_SHAPE);
    }
    return wrongShape;
  }

  private static final String PKG = "package dev.arcp.core.error;\n";

  /** Simple class name to source: each class is wrong in one way. */
  static final Map<String, String> WRONG_SHAPE =
      Map.ofEntries(
          Map.entry(
              "ErrorCode", PKG + "public enum ErrorCode { PERMISSION_DENIED, INTERNAL_ERROR }"),
          Map.entry(
              "ArcpException",
              PKG
                  + "public abstract class ArcpException extends Exception {\n"
                  + "  protected ArcpException(String m) { super(m); }\n"
                  + "  public abstract ErrorCode code();\n"
                  + "  public boolean retryable() { return false; }\n"
                  + "}"),
          // Not an Exception at all.
          Map.entry(
              "PermissionDeniedException",
              PKG
                  + "public final class PermissionDeniedException {\n"
                  + "  public PermissionDeniedException(String m) {}\n"
                  + "  public ErrorCode code() { return ErrorCode.PERMISSION_DENIED; }\n"
                  + "}"),
          // No (String) constructor.
          Map.entry(
              "LeaseExpiredException",
              PKG
                  + "public final class LeaseExpiredException extends ArcpException {\n"
                  + "  public LeaseExpiredException() { super(\"x\"); }\n"
                  + "  public ErrorCode code() { return null; }\n"
                  + "}"),
          // A constructor that throws.
          Map.entry(
              "BudgetExhaustedException",
              PKG
                  + "public final class BudgetExhaustedException extends ArcpException {\n"
                  + "  public BudgetExhaustedException(String m) {\n"
                  + "    super(m);\n"
                  + "    throw new IllegalStateException(\"refused\");\n"
                  + "  }\n"
                  + "  public ErrorCode code() { return null; }\n"
                  + "}"),
          // Reports another code.
          Map.entry(
              "InvalidRequestException",
              PKG
                  + "public final class InvalidRequestException extends ArcpException {\n"
                  + "  public InvalidRequestException(String m) { super(m); }\n"
                  + "  public ErrorCode code() { return ErrorCode.PERMISSION_DENIED; }\n"
                  + "}"),
          // Reports the wrong retryable flag (INTERNAL_ERROR is retryable).
          Map.entry(
              "InternalErrorException",
              PKG
                  + "public final class InternalErrorException extends ArcpException {\n"
                  + "  public InternalErrorException(String m) { super(m); }\n"
                  + "  public ErrorCode code() { return ErrorCode.INTERNAL_ERROR; }\n"
                  + "}"),
          // A static initializer that fails.
          Map.entry(
              "LeaseSubsetViolationException",
              PKG
                  + "public final class LeaseSubsetViolationException extends ArcpException {\n"
                  + "  static { if (true) throw new IllegalStateException(\"broken\"); }\n"
                  + "  public LeaseSubsetViolationException(String m) { super(m); }\n"
                  + "  public ErrorCode code() { return null; }\n"
                  + "}"),
          // Right methods, but not below ArcpException.
          Map.entry(
              "TimeoutException",
              PKG
                  + "public final class TimeoutException extends Exception {\n"
                  + "  public TimeoutException(String m) { super(m); }\n"
                  + "  public java.util.concurrent.TimeUnit code() { return null; }\n"
                  + "  public boolean retryable() { return true; }\n"
                  + "}"));

  private static void deleteTree(Path dir) {
    try (var paths = Files.walk(dir)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // A temporary directory left behind is harmless.
    }
  }

  private static ClassLoader compile(Map<String, String> sources) {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    assertNotNull(javac, "the tests need a JDK (javax.tools)");
    try {
      Path dir = Files.createTempDirectory("leasekit-wrong-sdk");
      Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(dir)));
      Path pkg = Files.createDirectories(dir.resolve("dev/arcp/core/error"));
      List<String> args = new ArrayList<>(List.of("-d", dir.toString(), "-nowarn"));
      for (Map.Entry<String, String> e : sources.entrySet()) {
        Path file = pkg.resolve(e.getKey() + ".java");
        Files.writeString(file, e.getValue());
        args.add(file.toString());
      }
      int rc = javac.run(null, null, null, args.toArray(String[]::new));
      assertTrue(rc == 0, "compiling the wrong-shape classes failed");
      return new URLClassLoader(
          new URL[] {dir.toUri().toURL()}, ClassLoader.getPlatformClassLoader());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

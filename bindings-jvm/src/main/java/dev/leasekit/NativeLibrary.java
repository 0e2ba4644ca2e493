package dev.leasekit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/**
 * Loads the native leasekit library ({@code libleasekit_jvm.so}) once per class loader.
 *
 * <p>The library is looked for, in this order:
 *
 * <ol>
 *   <li>the file named by the system property {@value #PATH_PROPERTY} (an absolute path);
 *   <li>{@code leasekit_jvm} on {@code java.library.path} ({@link System#loadLibrary});
 *   <li>the jar resource {@code /native/<os>-<arch>/<library file>}, copied to a new directory
 *       under the extraction directory: the system property {@value #EXTRACT_DIR_PROPERTY}, else
 *       the environment variable {@value #EXTRACT_DIR_ENV}, else {@code java.io.tmpdir} (set one of
 *       the first two where the temporary directory is mounted {@code noexec}).
 * </ol>
 *
 * <p>Whichever library loads, its version must equal the jar's ({@link #jarVersion()}): a library
 * of another release is refused with an {@link UnsatisfiedLinkError} naming both versions.
 *
 * <p>Every class of this package that calls native code loads it first, so applications rarely need
 * to call {@link #load()} themselves; calling it early surfaces a missing library at start-up.
 */
public final class NativeLibrary {
  /** System property naming the native library file explicitly. */
  public static final String PATH_PROPERTY = "leasekit.library.path";

  /** System property naming the directory the jar's library is extracted into. */
  public static final String EXTRACT_DIR_PROPERTY = "leasekit.native.extract.dir";

  /** Environment variable naming the extraction directory when the property is not set. */
  public static final String EXTRACT_DIR_ENV = "LEASEKIT_NATIVE_EXTRACT_DIR";

  /** Base name of the library ({@code libleasekit_jvm.so} on Linux). */
  public static final String LIBRARY_NAME = "leasekit_jvm";

  private static String loadedFrom;
  private static UnsatisfiedLinkError refused;

  private NativeLibrary() {}

  /**
   * Loads the library if it is not loaded yet.
   *
   * @throws UnsatisfiedLinkError if no location holds a loadable library; the message lists what
   *     was tried
   */
  public static synchronized void load() {
    if (refused != null) {
      throw refused;
    }
    if (loadedFrom != null) {
      return;
    }
    List<String> tried = new ArrayList<>();
    String explicit = System.getProperty(PATH_PROPERTY, "").trim();
    boolean loaded = false;
    if (!explicit.isEmpty()) {
      try {
        System.load(Path.of(explicit).toAbsolutePath().toString());
        loaded = true;
      } catch (UnsatisfiedLinkError e) {
        tried.add(PATH_PROPERTY + "=" + explicit + ": " + e.getMessage());
      }
    }
    if (loaded) {
      accept(explicit);
      return;
    }
    try {
      System.loadLibrary(LIBRARY_NAME);
      loaded = true;
    } catch (UnsatisfiedLinkError e) {
      tried.add("java.library.path: " + e.getMessage());
    }
    if (loaded) {
      accept("java.library.path");
      return;
    }
    Path extracted = null;
    try {
      extracted = extractResource(resourceName());
      if (extracted == null) {
        tried.add("resource " + resourceName() + ": not in the jar");
      } else {
        System.load(extracted.toString());
        loaded = true;
      }
    } catch (IOException | UnsatisfiedLinkError e) {
      tried.add("resource " + resourceName() + ": " + e.getMessage());
    }
    if (loaded) {
      accept("resource " + resourceName() + " (extracted to " + extracted + ")");
      return;
    }
    throw new UnsatisfiedLinkError("leasekit native library not found; tried " + tried);
  }

  /** Records where the library came from once its version matches the jar's. */
  private static void accept(String from) {
    String jar = jarVersion();
    String lib;
    try {
      lib = nativeVersion();
    } catch (UnsatisfiedLinkError e) {
      lib = "unknown (older than this check)";
    }
    String mismatch = versionMismatch(jar, lib);
    if (mismatch != null) {
      refused = new UnsatisfiedLinkError(mismatch + " (library from " + from + ")");
      throw refused;
    }
    loadedFrom = from;
  }

  /**
   * Compares the jar's version with the native library's.
   *
   * @param jar the jar's version ({@link #jarVersion()})
   * @param lib the native library's version
   * @return {@code null} when they are equal, else the message that explains the refusal
   */
  static String versionMismatch(String jar, String lib) {
    if (jar.equals(lib)) {
      return null;
    }
    return "leasekit native library version "
        + lib
        + " does not match the jar's version "
        + jar
        + "; use the library of the same release";
  }

  /**
   * The version of this jar (its Maven version, also the Rust workspace version).
   *
   * @return the version, e.g. {@code 0.1.0}
   * @throws UncheckedIOException if the jar's version resource cannot be read
   */
  public static String jarVersion() {
    try (InputStream in = NativeLibrary.class.getResourceAsStream("leasekit-version.properties")) {
      if (in == null) {
        throw new UncheckedIOException(
            new IOException("dev/leasekit/leasekit-version.properties is missing from the jar"));
      }
      Properties p = new Properties();
      p.load(in);
      return p.getProperty("version", "");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The version the loaded native library was built as. */
  private static native String nativeVersion();

  /**
   * The version of the loaded native library; loads it first.
   *
   * @return the library's version, equal to {@link #jarVersion()} once loaded
   */
  public static synchronized String libraryVersion() {
    load();
    return nativeVersion();
  }

  /**
   * The directory the jar's library is extracted into: the system property {@value
   * #EXTRACT_DIR_PROPERTY}, else the environment variable {@value #EXTRACT_DIR_ENV}, else {@code
   * java.io.tmpdir}.
   *
   * @return the extraction directory
   */
  public static Path extractionDirectory() {
    String dir = System.getProperty(EXTRACT_DIR_PROPERTY, "").trim();
    if (dir.isEmpty()) {
      String env = System.getenv(EXTRACT_DIR_ENV);
      dir = env == null ? "" : env.trim();
    }
    if (dir.isEmpty()) {
      dir = System.getProperty("java.io.tmpdir");
    }
    return Path.of(dir).toAbsolutePath();
  }

  /**
   * Where the library was loaded from: the explicit path, {@code "java.library.path"} or {@code
   * "resource <name> (extracted to <file>)"}; {@code null} before {@link #load()} succeeded.
   *
   * @return the source of the loaded library, or {@code null}
   */
  public static synchronized String loadedFrom() {
    return loadedFrom;
  }

  /**
   * The jar resource that holds the library for this platform, e.g. {@code
   * /native/linux-x86_64/libleasekit_jvm.so}.
   *
   * @return the resource name for the running OS and architecture
   */
  public static String resourceName() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String osName = os.contains("win") ? "windows" : os.contains("mac") ? "osx" : "linux";
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    String archName =
        switch (arch) {
          case "amd64", "x86_64" -> "x86_64";
          case "aarch64", "arm64" -> "aarch_64";
          default -> arch;
        };
    return "/native/" + osName + "-" + archName + "/" + System.mapLibraryName(LIBRARY_NAME);
  }

  /**
   * Copies a class-path resource to a new directory under {@link #extractionDirectory()}; the file
   * and the directory are deleted when the JVM exits.
   *
   * @param resource the absolute resource name
   * @return the temporary file, or {@code null} when the resource does not exist
   * @throws IOException if the copy fails
   */
  static Path extractResource(String resource) throws IOException {
    try (InputStream in = NativeLibrary.class.getResourceAsStream(resource)) {
      if (in == null) {
        return null;
      }
      String file = resource.substring(resource.lastIndexOf('/') + 1);
      Path parent = extractionDirectory();
      Files.createDirectories(parent);
      Path dir = Files.createTempDirectory(parent, "leasekit-native");
      Path target = dir.resolve(file);
      Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
      target.toFile().deleteOnExit();
      dir.toFile().deleteOnExit();
      return target;
    }
  }
}

package dev.leasekit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Loads the native leasekit library ({@code libleasekit_jvm.so}) once per class loader.
 *
 * <p>The library is looked for, in this order:
 *
 * <ol>
 *   <li>the file named by the system property {@value #PATH_PROPERTY} (an absolute path);
 *   <li>{@code leasekit_jvm} on {@code java.library.path} ({@link System#loadLibrary});
 *   <li>the jar resource {@code /native/<os>-<arch>/<library file>}, copied to a temporary file.
 * </ol>
 *
 * <p>Every class of this package that calls native code loads it first, so applications rarely need
 * to call {@link #load()} themselves; calling it early surfaces a missing library at start-up.
 */
public final class NativeLibrary {
  /** System property naming the native library file explicitly. */
  public static final String PATH_PROPERTY = "leasekit.library.path";

  /** Base name of the library ({@code libleasekit_jvm.so} on Linux). */
  public static final String LIBRARY_NAME = "leasekit_jvm";

  private static String loadedFrom;

  private NativeLibrary() {}

  /**
   * Loads the library if it is not loaded yet.
   *
   * @throws UnsatisfiedLinkError if no location holds a loadable library; the message lists what
   *     was tried
   */
  public static synchronized void load() {
    if (loadedFrom != null) {
      return;
    }
    List<String> tried = new ArrayList<>();
    String explicit = System.getProperty(PATH_PROPERTY, "").trim();
    if (!explicit.isEmpty()) {
      try {
        System.load(Path.of(explicit).toAbsolutePath().toString());
        loadedFrom = explicit;
        return;
      } catch (UnsatisfiedLinkError e) {
        tried.add(PATH_PROPERTY + "=" + explicit + ": " + e.getMessage());
      }
    }
    try {
      System.loadLibrary(LIBRARY_NAME);
      loadedFrom = "java.library.path";
      return;
    } catch (UnsatisfiedLinkError e) {
      tried.add("java.library.path: " + e.getMessage());
    }
    try {
      Path extracted = extractResource(resourceName());
      if (extracted != null) {
        System.load(extracted.toString());
        loadedFrom = "resource " + resourceName();
        return;
      }
      tried.add("resource " + resourceName() + ": not in the jar");
    } catch (IOException | UnsatisfiedLinkError e) {
      tried.add("resource " + resourceName() + ": " + e.getMessage());
    }
    throw new UnsatisfiedLinkError("leasekit native library not found; tried " + tried);
  }

  /**
   * Where the library was loaded from: the explicit path, {@code "java.library.path"} or {@code
   * "resource <name>"}; {@code null} before {@link #load()} succeeded.
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
   * Copies a class-path resource to a new temporary file that is deleted when the JVM exits.
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
      Path dir = Files.createTempDirectory("leasekit-native");
      Path target = dir.resolve(file);
      Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
      target.toFile().deleteOnExit();
      dir.toFile().deleteOnExit();
      return target;
    }
  }
}

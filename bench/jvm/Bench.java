// JVM harness: the leasekit JVM binding against a java.util.regex glob cached per guard in a
// ConcurrentHashMap (the technique of the public ARCP Java SDK's LeaseGuard; the SDK itself,
// io.agentruntimecontrolprotocol:arcp-core / arcp-runtime, is not on Maven Central).
//
// Usage: java -cp <leasekit jar + deps> Bench.java INPUTS_TSV OUT_JSON
// Writes {"lang": "jvm", "records": [...]} like the other harnesses.
import dev.leasekit.BudgetCounters;
import dev.leasekit.Lease;
import dev.leasekit.LeaseException;
import dev.leasekit.LeaseGuard;
import dev.leasekit.LeaseSubset;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import java.util.regex.Pattern;

public class Bench {
  static final int SAMPLES = 11;
  static final long BATCH_NS = 10_000_000L;
  static volatile Object sink;

  /** Median ns per call: ~300 ms of warm-up (JIT), then a ~10 ms batch, SAMPLES batches. */
  static double[] medianNsPerCall(Runnable f) {
    return medianNsPerCallInterleaved(List.of(f)).get(0);
  }

  /** Iterations for a batch of about BATCH_NS, after ~300 ms of warm-up (JIT). */
  static long calibrate(Runnable f) {
    long warm = System.nanoTime() + 300_000_000L;
    while (System.nanoTime() < warm) f.run();
    long iters = 1;
    for (;;) {
      long el = batch(f, iters);
      if (el >= BATCH_NS / 4) {
        el = Math.min(el, batch(f, iters));
        if (el < BATCH_NS) iters = Math.max(1, iters * BATCH_NS / Math.max(el, 1));
        return iters;
      }
      iters *= 4;
    }
  }

  /**
   * Median ns per call of each function, their batches interleaved (sample s of every function
   * runs before sample s+1 of any), so a machine that speeds up or slows down during the run
   * weighs on leasekit and the peers alike. Each result is {median, iters}.
   */
  static List<double[]> medianNsPerCallInterleaved(List<Runnable> fs) {
    long[] iters = new long[fs.size()];
    for (int k = 0; k < fs.size(); k++) iters[k] = calibrate(fs.get(k));
    double[][] per = new double[fs.size()][SAMPLES];
    for (int s = 0; s < SAMPLES; s++) {
      for (int k = 0; k < fs.size(); k++) per[k][s] = (double) batch(fs.get(k), iters[k]) / iters[k];
    }
    List<double[]> out = new ArrayList<>();
    for (int k = 0; k < fs.size(); k++) {
      Arrays.sort(per[k]);
      out.add(new double[] {per[k][SAMPLES / 2], iters[k]});
    }
    return out;
  }

  static long batch(Runnable f, long iters) {
    long t = System.nanoTime();
    for (long i = 0; i < iters; i++) f.run();
    return System.nanoTime() - t;
  }

  static long peakRssKb() {
    try {
      for (String l : Files.readAllLines(Path.of("/proc/self/status")))
        if (l.startsWith("VmHWM:")) return Long.parseLong(l.replaceAll("[^0-9]", ""));
    } catch (Exception e) {
      // not Linux
    }
    return 0;
  }

  static void resetPeakRss() {
    try {
      Files.writeString(Path.of("/proc/self/clear_refs"), "5");
    } catch (Exception e) {
      // best effort
    }
  }

  // ---- implementations ----
  static Predicate<String> leasekit(List<String> patterns, String cap) {
    LeaseGuard g = LeaseGuard.of(Lease.of(Map.of(cap, patterns)));
    return t -> {
      try {
        sink = g.authorize(cap, t);
        return true;
      } catch (LeaseException e) {
        return false;
      }
    };
  }

  /** The SDK's way: a glob turned into a regex, compiled once and cached in a map. */
  static final class RegexGuard {
    final Map<String, List<String>> lease;
    final ConcurrentHashMap<String, Pattern> cache = new ConcurrentHashMap<>();

    RegexGuard(Map<String, List<String>> lease) {
      this.lease = lease;
    }

    static Pattern compile(String glob) {
      StringBuilder sb = new StringBuilder();
      String[] parts = glob.split("\\*\\*", -1);
      for (int i = 0; i < parts.length; i++) {
        if (i > 0) sb.append(".*");
        String[] lits = parts[i].split("\\*", -1);
        for (int j = 0; j < lits.length; j++) {
          if (j > 0) sb.append("[^/]*");
          if (!lits[j].isEmpty()) sb.append(Pattern.quote(lits[j]));
        }
      }
      return Pattern.compile(sb.toString());
    }

    boolean authorize(String cap, String target) {
      List<String> ps = lease.get(cap);
      if (ps == null) return false;
      String t = cap.startsWith("fs.") ? Path.of(target).normalize().toString() : target;
      for (String p : ps) if (cache.computeIfAbsent(p, RegexGuard::compile).matcher(t).matches()) return true;
      return false;
    }
  }

  static Predicate<String> regex(List<String> patterns, String cap) {
    RegexGuard g = new RegexGuard(Map.of(cap, patterns));
    return t -> g.authorize(cap, t);
  }

  interface Maker {
    Predicate<String> make(List<String> patterns, String cap);
  }

  static final Map<String, Maker> IMPLS = new LinkedHashMap<>();

  static {
    IMPLS.put("leasekit", Bench::leasekit);
    IMPLS.put("java-regex", Bench::regex);
  }

  static final List<String> records = new ArrayList<>();

  static String q(String s) {
    StringBuilder sb = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') sb.append('\\');
      sb.append(c);
    }
    return sb.append('"').toString();
  }

  static void timed(String impl, String op, Runnable f) {
    double[] r = medianNsPerCall(f);
    records.add(String.format(Locale.ROOT,
        "{\"kind\": \"time\", \"impl\": %s, \"op\": %s, \"median_ns\": %.3f, \"iters\": %d, \"samples\": %d}",
        q(impl), q(op), r[0], (long) r[1], SAMPLES));
  }

  public static void main(String[] args) throws Exception {
    Map<String, List<String[]>> in = new LinkedHashMap<>();
    for (String line : Files.readAllLines(Path.of(args[0]))) {
      String[] f = line.split("\t", -1);
      in.computeIfAbsent(f[0], k -> new ArrayList<>()).add(Arrays.copyOfRange(f, 1, f.length));
    }
    String cap = in.get("capability").get(0)[0];
    Map<String, List<String>> leases = new LinkedHashMap<>();
    Map<String, String> targets = new LinkedHashMap<>(), denied = new LinkedHashMap<>();
    for (String[] r : in.get("lease")) leases.put(r[0], List.of(Arrays.copyOfRange(r, 1, r.length)));
    for (String[] r : in.get("target")) targets.put(r[0], r[1]);
    for (String[] r : in.get("denied")) denied.put(r[0], r[1]);

    Map<String, Map<String, Predicate<String>>> auths = new LinkedHashMap<>();
    for (var e : IMPLS.entrySet()) {
      Map<String, Predicate<String>> bySize = new LinkedHashMap<>();
      for (var l : leases.entrySet()) bySize.put(l.getKey(), e.getValue().make(l.getValue(), cap));
      auths.put(e.getKey(), bySize);
    }
    for (var e : auths.entrySet()) {
      String impl = e.getKey();
      var bySize = e.getValue();
      for (String n : leases.keySet()) {
        if (!bySize.get(n).test(targets.get(n)) || bySize.get(n).test(denied.get(n)))
          throw new IllegalStateException(impl + ": timed input disagrees for lease " + n);
      }
      int agree = 0, disagree = 0;
      List<String> examples = new ArrayList<>();
      for (String[] p : in.get("probe")) {
        boolean a = auths.get("leasekit").get(p[0]).test(p[1]), b = bySize.get(p[0]).test(p[1]);
        if (a == b) agree++;
        else {
          disagree++;
          examples.add(q(p[1] + " (lease of " + p[0] + "): leasekit " + a + ", " + impl + " " + b));
        }
      }
      records.add(String.format(
          "{\"kind\": \"check\", \"impl\": %s, \"op\": \"authorize\", \"agree\": %d, \"disagree\": %d, \"examples\": [%s]}",
          q(impl), agree, disagree, String.join(", ", examples)));
    }
    // authorize: leasekit and every peer timed with interleaved batches, per lease size.
    for (String n : leases.keySet()) {
      String t = targets.get(n);
      List<String> impls = new ArrayList<>(auths.keySet());
      List<Runnable> fs = new ArrayList<>();
      for (String impl : impls) {
        if (impl.equals("leasekit")) {
          // The bare binding call.
          LeaseGuard g = LeaseGuard.of(Lease.of(Map.of(cap, leases.get(n))));
          fs.add(() -> sink = g.authorize(cap, t));
        } else {
          Predicate<String> f = auths.get(impl).get(n);
          fs.add(() -> sink = f.test(t));
        }
      }
      List<double[]> r = medianNsPerCallInterleaved(fs);
      for (int k = 0; k < impls.size(); k++) {
        records.add(String.format(Locale.ROOT,
            "{\"kind\": \"time\", \"impl\": %s, \"op\": %s, \"median_ns\": %.3f, \"iters\": %d, \"samples\": %d, \"interleaved\": true}",
            q(impls.get(k)), q("authorize/" + n), r.get(k)[0], (long) r.get(k)[1], SAMPLES));
      }
    }

    Lease parent = Lease.of(Map.of(cap, leases.get("10")));
    Lease child = Lease.of(Map.of(cap, List.of(in.get("subset_child").get(0))));
    if (!LeaseSubset.isSubset(child, parent)) throw new IllegalStateException("subset answer");
    timed("leasekit", "subset", () -> sink = LeaseSubset.isSubset(child, parent));

    String[] b = in.get("budget").get(0);
    var entry = BudgetCounters.parseEntry(b[0]);
    if (!entry.currency().equals(b[1]) || entry.amount().compareTo(new BigDecimal(b[2])) != 0)
      throw new IllegalStateException("budget parse " + entry);
    timed("leasekit", "budget_parse", () -> sink = BudgetCounters.parseEntry(b[0]));
    String[] m = in.get("metric").get(0);
    LeaseGuard spender = LeaseGuard.of(Lease.of(Map.of("cost.budget", List.of(b[3]))));
    timed("leasekit", "budget_spend", () -> sink = spender.recordMetric(m[0], m[1], m[2]));

    // Adversarial series: leasekit first, then the backtracking regex in a daemon thread with a
    // timeout (a regex cannot be interrupted; the stuck thread is abandoned and the JVM exits).
    String[] adv = in.get("adversarial").get(0);
    String acap = adv[0], apat = adv[1];
    long timeoutS = Long.parseLong(adv[2]);
    String[] sizes = in.get("adversarial_sizes").get(0);
    ExecutorService pool = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r);
      t.setDaemon(true);
      return t;
    });
    for (var e : IMPLS.entrySet()) {
      Predicate<String> f = e.getValue().make(List.of(apat), acap);
      resetPeakRss();
      for (String s : sizes) {
        String target = "a".repeat(Integer.parseInt(s));
        Future<double[]> fut = pool.submit(() -> {
          long t0 = System.nanoTime();
          boolean ans = f.test(target);
          long first = System.nanoTime() - t0;
          double ns = first > 50_000_000L ? first : medianNsPerCall(() -> sink = f.test(target))[0];
          return new double[] {ns, ans ? 1 : 0};
        });
        try {
          double[] r = fut.get(timeoutS + 1, TimeUnit.SECONDS); // +1: the JIT warm-up
          records.add(String.format(Locale.ROOT,
              "{\"kind\": \"adv\", \"impl\": %s, \"series\": \"star-a\", \"n\": %s, \"ns\": %.1f, \"answer\": %b, \"timed_out\": false, \"peak_rss_kb\": %d}",
              q(e.getKey()), s, r[0], r[1] == 1, peakRssKb()));
        } catch (TimeoutException te) {
          records.add(String.format(
              "{\"kind\": \"adv\", \"impl\": %s, \"series\": \"star-a\", \"n\": %s, \"ns\": null, \"timed_out\": true, \"timeout_s\": %d, \"peak_rss_kb\": %d}",
              q(e.getKey()), s, timeoutS + 1, peakRssKb()));
          break;
        }
      }
    }

    String out = "{\"lang\": \"jvm\", \"java\": " + q(System.getProperty("java.version"))
        + ", \"peers\": {\"java-regex\": \"java.util.regex glob cached per guard (the ARCP Java SDK technique; SDK not on Maven Central)\"},"
        + " \"records\": [\n" + String.join(",\n", records) + "\n]}\n";
    Files.writeString(Path.of(args[1]), out);
    System.exit(0);
  }
}

// leasekit for Java in one file: build a lease, guard operations, spend an exact budget, and
// delegate to a child whose lease must be a subset. Runs against the packaged jar:
//
//   java -cp bindings-jvm/target/leasekit-0.1.0.jar:<jackson-databind jars>
// examples/java/QuickStart.java
//
// (scripts/test-jvm.sh runs it this way; the native library is loaded from the jar.)
// Exits non-zero if any result differs from what is printed as expected.

import dev.leasekit.BudgetCounters;
import dev.leasekit.Lease;
import dev.leasekit.LeaseGuard;
import dev.leasekit.LeaseSubsetViolationException;
import dev.leasekit.NativeLibrary;
import dev.leasekit.PermissionDeniedException;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;

public class QuickStart {
  public static void main(String[] args) {
    Lease lease =
        Lease.builder()
            .allow("fs.read", "/data/**")
            .allow("net.fetch", "https://api.example.com/**")
            .allow("model.use", "claude-*", "gpt-4*")
            .budget("USD", new BigDecimal("10.00"))
            .expiresAt(Instant.now().plus(Duration.ofHours(1)))
            .build();
    System.out.println("lease: " + lease);

    try (LeaseGuard guard = LeaseGuard.of(lease)) {
      // Targets are canonicalized first; use the returned value for the real operation.
      String url = guard.authorize("net.fetch", "HTTPS://API.example.com:443/v1/../data");
      check("https://api.example.com/data".equals(url), "canonical URL " + url);

      try {
        guard.authorize("net.fetch", "https://api.example.com@evil.com/");
        check(false, "userinfo confusion must not pass");
      } catch (dev.leasekit.InvalidRequestException expected) {
        System.out.println("rejected: " + expected.code());
      }
      try {
        guard.authorizeModel("llama3");
        check(false, "llama3 is not granted");
      } catch (PermissionDeniedException expected) {
        System.out.println("denied: " + expected.code() + " retryable=" + expected.retryable());
      }

      // Exact decimals: ten spends of 0.10 leave exactly 9.00.
      BudgetCounters budget = guard.budget();
      for (int i = 0; i < 10; i++) {
        budget.spend("cost.llm", new BigDecimal("0.10"), "USD");
      }
      BigDecimal left = budget.remaining("USD").orElseThrow();
      check(left.compareTo(new BigDecimal("9")) == 0, "remaining " + left);

      // Delegation enforces the subset relation and reserves the child's budget.
      try {
        guard.delegate(Lease.builder().allow("fs.read", "/**").build());
        check(false, "a wider child must be refused");
      } catch (LeaseSubsetViolationException e) {
        System.out.println(
            "subset violation: "
                + e.capability().orElse("?")
                + " witness \""
                + e.witness().orElse("?")
                + "\"");
      }
      try (LeaseGuard child =
          guard.delegate(
              Lease.builder()
                  .allow("model.use", "gpt-4o*")
                  .budget("USD", new BigDecimal("2"))
                  .build())) {
        child.authorizeModel("gpt-4o-mini");
        check(
            guard.remaining().get("USD").compareTo(new BigDecimal("7")) == 0,
            "parent after reserve");
      }
      check(
          guard.remaining().get("USD").compareTo(new BigDecimal("9")) == 0,
          "parent after child close");
    }
    System.out.println("native library from: " + NativeLibrary.loadedFrom());
    System.out.println("QuickStart OK");
  }

  private static void check(boolean ok, String what) {
    if (!ok) {
      throw new IllegalStateException("unexpected: " + what);
    }
    System.out.println("ok: " + what);
  }
}

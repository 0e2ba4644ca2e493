package example;

import dev.leasekit.Governor;
import dev.leasekit.NativeLibrary;
import java.util.Map;

/** The Java README's governor example on a SQLite file, then the file reopened. */
public final class GovernorOnSqlite {
  public static void main(String[] args) {
    String store = "sqlite:" + args[0];
    Object leaseId;
    try (Governor gov = Governor.open(store, "{\"dailyBudgetCents\": 500}", null)) {
      Map<String, Object> grant =
          gov.acquire(
              Map.of(
                  "actorId", "alice", "workspaceId", "ws1", "modelId", "gpt-4o-mini",
                  "estimatedPromptTokens", 100, "maxOutputTokens", 50, "estimatedCostCents", 5));
      if (!Boolean.TRUE.equals(grant.get("granted"))) {
        throw new IllegalStateException("not granted: " + grant);
      }
      leaseId = grant.get("leaseId");
      gov.release(Map.of("leaseId", leaseId, "actualCostCents", 4));
    }
    try (Governor gov = Governor.open(store, "{\"dailyBudgetCents\": 500}", null)) {
      Map<String, Object> m = gov.metrics();
      System.out.println("acquired and released " + leaseId);
      System.out.println("reopened: activeLeases=" + m.get("activeLeases")
          + " spendTodayCents=" + m.get("spendTodayCents"));
    }
    System.out.println("native library from: " + NativeLibrary.loadedFrom());
  }
}

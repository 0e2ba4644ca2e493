/* Builds a lease from JSON and authorizes two targets through the leasekit C ABI.
 * Build: cc -std=c11 authorize.c $(pkg-config --cflags --libs leasekit) */
#include <stdio.h>
#include "leasekit.h"

static void check(const LkGuard *guard, const char *cap, const char *target) {
    char *canonical = NULL;
    LkStatus st = lk_guard_authorize(guard, cap, target, &canonical);
    if (st == LK_OK) {
        printf("allow %s %s -> %s\n", cap, target, canonical);
    } else {
        char *err = lk_last_error_json();
        printf("deny  %s %s: %s %s\n", cap, target, lk_status_name(st), err);
        lk_string_free(err);
    }
    lk_string_free(canonical);
}

int main(void) {
    LkLease *lease = NULL;
    LkGuard *guard = NULL;
    if (lk_lease_from_json("{\"fs.read\": [\"/data/**\"], \"net.fetch\": [\"https://api.example.com/**\"]}",
                           &lease) != LK_OK ||
        lk_guard_new(lease, NULL, NULL, &guard) != LK_OK)
        return 1;
    check(guard, "fs.read", "/data/reports/../2026/q1.csv");
    check(guard, "net.fetch", "https://evil.example.com/steal");
    lk_guard_free(guard);
    lk_lease_free(lease);
    return 0;
}

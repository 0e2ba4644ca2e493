/*
 * Tests of the governor's C ABI (lk_governor_*, lk_frame_decode) as a C caller sees it:
 * open on memory and SQLite, typed helpers, the strict call and the lenient wire
 * dispatcher, frames, the manual clock, refusals, restart, and threads sharing a handle.
 * Run under valgrind by scripts/test-c.sh. Prints "governor: N passed, N failed".
 */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>
#include <unistd.h>

#include "leasekit.h"

static int failures_in_test;

#define CHECK(cond)                                                                    \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
            failures_in_test++;                                                        \
        }                                                                              \
    } while (0)

static bool last_error_has(const char *needle) {
    char *err = lk_last_error_json();
    bool found = err && strstr(err, needle) != NULL;
    lk_string_free(err);
    return found;
}

/* Whether an owned library string holds `needle`; frees it. */
static bool takes(char *s, const char *needle) {
    bool found = s && strstr(s, needle) != NULL;
    if (!found) fprintf(stderr, "  (string was %s, wanted %s)\n", s ? s : "NULL", needle);
    lk_string_free(s);
    return found;
}

static const char *TEST_OPTIONS = "{\"manualClock\":\"2026-01-01T00:00:00Z\",\"ids\":\"deterministic\"}";
static const char *ACQUIRE = "{\"actorId\":\"alice\",\"workspaceId\":\"ws1\",\"estimatedCostCents\":5}";

static LkGovernor *open_memory(const char *policy) {
    LkGovernor *g = NULL;
    if (lk_governor_open("memory", policy, TEST_OPTIONS, &g) != LK_OK) return NULL;
    return g;
}

static void test_acquire_release_metrics(void) {
    LkGovernor *g = open_memory("{\"maxInFlight\":1,\"leaseTtlMs\":1000}");
    CHECK(g != NULL);
    char *out = NULL;
    CHECK(lk_governor_acquire(g, ACQUIRE, &out) == LK_OK);
    CHECK(takes(out, "\"leaseId\":\"lease-1\""));
    CHECK(lk_governor_acquire(g, ACQUIRE, &out) == LK_OK); /* a denial is an answer, not an error */
    CHECK(takes(out, "\"deniedReason\":\"concurrency_limit_reached\""));
    CHECK(lk_governor_release(g, "{\"leaseId\":\"lease-1\",\"actualCostCents\":3}", &out) == LK_OK);
    CHECK(takes(out, "\"classification\":\"recorded\""));
    CHECK(lk_governor_metrics(g, NULL, &out) == LK_OK);
    CHECK(takes(out, "\"spendTodayCents\":3"));
    CHECK(lk_governor_call(g, "GetStatus", NULL, &out) == LK_OK);
    CHECK(takes(out, "\"durableStateEnabled\":false"));
    CHECK(lk_governor_verify_audit(g, NULL, &out) == LK_OK);
    CHECK(takes(out, "\"ok\":true"));
    lk_governor_free(g);
}

static void test_strict_call_and_lenient_handle(void) {
    LkGovernor *g = open_memory(NULL);
    char *out = (char *)"sentinel";
    /* A misspelt field of a typed call is refused ... */
    CHECK(lk_governor_acquire(g, "{\"actorId\":\"a\",\"estimatedCost\":5}", &out) == LK_INVALID_REQUEST);
    CHECK(out == NULL);
    CHECK(last_error_has("estimatedCost"));
    CHECK(lk_governor_call(g, "Frobnicate", "{}", &out) == LK_INVALID_REQUEST);
    CHECK(lk_governor_call(g, "Acquire", "[1]", &out) == LK_INVALID_REQUEST);
    CHECK(lk_governor_call(g, "Acquire", "{\"estimatedCostCents\":-1}", &out) == LK_INVALID_REQUEST);
    /* ... and ignored by the wire dispatcher, as the protocol does. */
    CHECK(lk_governor_handle(g, "Acquire", "{\"actorId\":\"a\",\"estimatedCost\":5}", &out) == LK_OK);
    CHECK(takes(out, "\"success\":true"));
    CHECK(lk_governor_handle(g, "Frobnicate", NULL, &out) == LK_OK);
    CHECK(takes(out, "\"error\":\"unknown_command\""));
    CHECK(lk_governor_handle(g, "Acquire", "hello", &out) == LK_OK);
    CHECK(takes(out, "\"success\":false"));
    lk_governor_free(g);
}

static void test_open_refusals(void) {
    LkGovernor *g = (LkGovernor *)&g;
    CHECK(lk_governor_open("", NULL, NULL, &g) == LK_INVALID_REQUEST);
    CHECK(g == NULL);
    /* A PostgreSQL URL is a store (a fleet); an unreachable server is a retryable error. */
    CHECK(lk_governor_open("postgres://u@%2Fnonexistent-leasekit-dir/db", NULL, NULL, &g) == LK_INTERNAL_ERROR);
    CHECK(g == NULL);
    CHECK(last_error_has("PostgreSQL"));
    CHECK(lk_governor_open("memory", "{not json", NULL, &g) == LK_INVALID_REQUEST);
    CHECK(lk_governor_open("memory", NULL, "{\"ids\":\"sequential\"}", &g) == LK_INVALID_REQUEST);
    CHECK(lk_governor_open("memory", NULL, "{\"maxInFlight\":-1}", &g) == LK_INVALID_REQUEST);
    CHECK(lk_governor_open("memory", NULL, "{\"synchronous\":\"normal\"}", &g) == LK_INVALID_REQUEST);
    CHECK(lk_governor_open(NULL, NULL, NULL, &g) == LK_INVALID_REQUEST);
    CHECK(lk_governor_open("memory", NULL, NULL, NULL) == LK_INVALID_REQUEST);
    char *out = NULL;
    CHECK(lk_governor_acquire(NULL, ACQUIRE, &out) == LK_INVALID_REQUEST);
    CHECK(lk_governor_handle(NULL, "GetMetrics", NULL, &out) == LK_INVALID_REQUEST);
    const char bad_utf8[] = {'G', (char)0xff, 0};
    LkGovernor *ok = open_memory(NULL);
    CHECK(lk_governor_handle(ok, bad_utf8, NULL, &out) == LK_INVALID_REQUEST);
    CHECK(last_error_has("UTF-8"));
    lk_governor_free(ok);
    lk_governor_free(NULL);
}

static void test_manual_clock(void) {
    LkGovernor *g = open_memory("{\"leaseTtlMs\":1000}");
    char *out = NULL;
    CHECK(lk_governor_acquire(g, ACQUIRE, &out) == LK_OK);
    CHECK(takes(out, "\"expiresAtUtc\":\"2026-01-01T00:00:01.000Z\""));
    CHECK(lk_governor_advance_ms(g, 1500) == LK_OK);
    CHECK(lk_governor_time(g, &out) == LK_OK);
    CHECK(takes(out, "2026-01-01T00:00:01.500Z"));
    /* the lease expired: a release reports it and settles the actuals */
    CHECK(lk_governor_release(g, "{\"leaseId\":\"lease-1\"}", &out) == LK_OK);
    CHECK(takes(out, "\"classification\":\"leaseExpired\""));
    CHECK(lk_governor_set_time(g, "2026-02-01T00:00:00Z") == LK_OK);
    CHECK(lk_governor_set_time(g, "tomorrow") == LK_INVALID_REQUEST);
    lk_governor_free(g);
    LkGovernor *system = NULL;
    CHECK(lk_governor_open("memory", NULL, NULL, &system) == LK_OK);
    CHECK(lk_governor_advance_ms(system, 1) == LK_INVALID_REQUEST);
    CHECK(lk_governor_time(system, &out) == LK_INVALID_REQUEST && out == NULL);
    CHECK(lk_governor_acquire(system, ACQUIRE, &out) == LK_OK);
    CHECK(takes(out, "\"granted\":true"));
    lk_governor_free(system);
}

/* Removes a SQLite store's files (the database, its WAL and shared memory). */
static void remove_db(const char *path) {
    static const char *const suffixes[] = {"", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) {
        char name[320];
        snprintf(name, sizeof name, "%s%s", path, suffixes[i]);
        remove(name);
    }
}

static void test_sqlite_restart(void) {
    char path[256];
    snprintf(path, sizeof path, "/tmp/leasekit-c-govtest-%ld.db", (long)getpid());
    /* An earlier process with the same pid (pid namespaces reuse them) may have left files. */
    remove_db(path);
    char store[300];
    snprintf(store, sizeof store, "sqlite:%s", path);
    LkGovernor *g = NULL;
    CHECK(lk_governor_open(store, "{\"maxInFlight\":1}", TEST_OPTIONS, &g) == LK_OK);
    char *out = NULL;
    CHECK(lk_governor_acquire(g, ACQUIRE, &out) == LK_OK);
    CHECK(takes(out, "\"leaseId\":\"lease-1\""));
    lk_governor_free(g);
    g = NULL;
    CHECK(lk_governor_open(store, "{\"maxInFlight\":1}", TEST_OPTIONS, &g) == LK_OK);
    /* the grant survived: the one slot is still taken, and the lease releases */
    CHECK(lk_governor_acquire(g, ACQUIRE, &out) == LK_OK);
    CHECK(takes(out, "concurrency_limit_reached"));
    CHECK(lk_governor_call(g, "GetStatus", "{}", &out) == LK_OK);
    CHECK(takes(out, "\"durableStateEnabled\":true"));
    CHECK(lk_governor_release(g, "{\"leaseId\":\"lease-1\",\"actualCostCents\":2}", &out) == LK_OK);
    CHECK(takes(out, "\"classification\":\"recorded\""));
    CHECK(lk_governor_verify_audit(g, NULL, &out) == LK_OK);
    CHECK(takes(out, "\"ok\":true"));
    lk_governor_free(g);
    remove_db(path);
}

/* Whether `len` bytes at `hay` contain the string `needle` (memmem is not C11). */
static bool bytes_have(const uint8_t *hay, size_t len, const char *needle) {
    size_t n = strlen(needle);
    for (size_t i = 0; i + n <= len; i++) {
        if (memcmp(hay + i, needle, n) == 0) return true;
    }
    return false;
}

/* A frame: 4-byte little-endian length, then the bytes. */
static size_t frame(const char *body, uint8_t *buf) {
    size_t n = strlen(body);
    buf[0] = (uint8_t)(n & 0xff);
    buf[1] = (uint8_t)((n >> 8) & 0xff);
    buf[2] = (uint8_t)((n >> 16) & 0xff);
    buf[3] = (uint8_t)((n >> 24) & 0xff);
    memcpy(buf + 4, body, n);
    return n + 4;
}

static void test_frames(void) {
    uint8_t buf[512];
    size_t n = frame("{\"protocolVersion\":\"0.1\",\"command\":\"GetMetrics\",\"payloadJson\":\"{}\"}", buf);
    char *out = NULL;
    CHECK(lk_frame_decode(buf, n, &out) == LK_OK);
    CHECK(takes(out, "\"command\":\"GetMetrics\""));
    CHECK(lk_frame_decode(buf, n - 1, &out) == LK_INVALID_REQUEST); /* truncated */
    CHECK(lk_frame_decode(NULL, 0, &out) == LK_INVALID_REQUEST);
    uint8_t zero[4] = {0, 0, 0, 0}, huge[4] = {0x01, 0x00, 0x00, 0x01}; /* 0 and 16 MiB + 1 */
    CHECK(lk_frame_decode(zero, 4, &out) == LK_INVALID_REQUEST);
    CHECK(lk_frame_decode(huge, 4, &out) == LK_INVALID_REQUEST);
    CHECK(last_error_has("exceeds maximum"));

    LkGovernor *g = open_memory(NULL);
    uint8_t *answer = NULL;
    size_t len = 0;
    CHECK(lk_governor_handle_frame(g, buf, n, &answer, &len) == LK_OK);
    CHECK(answer != NULL && len > 4);
    if (answer && len > 4) {
        size_t body = (size_t)answer[0] | (size_t)answer[1] << 8 | (size_t)answer[2] << 16 | (size_t)answer[3] << 24;
        CHECK(body == len - 4);
        CHECK(bytes_have(answer + 4, len - 4, "\"success\":true"));
    }
    lk_bytes_free(answer, len);
    CHECK(lk_governor_handle_frame(g, zero, 4, &answer, &len) == LK_OK); /* answered with a failure */
    CHECK(answer && bytes_have(answer + 4, len - 4, "\"success\":false"));
    lk_bytes_free(answer, len);
    lk_bytes_free(NULL, 0);
    lk_governor_free(g);
}

enum { THREADS = 8, PAIRS = 40 };

static int acquire_release(void *arg) {
    LkGovernor *g = arg;
    for (int i = 0; i < PAIRS; i++) {
        char *out = NULL;
        if (lk_governor_acquire(g, "{\"actorId\":\"t\",\"workspaceId\":\"w\",\"estimatedCostCents\":1}", &out) != LK_OK)
            return 1;
        const char *id = out ? strstr(out, "\"leaseId\":\"") : NULL;
        if (!id) {
            lk_string_free(out);
            return 1;
        }
        char release[128];
        int len = (int)strcspn(id + 11, "\"");
        snprintf(release, sizeof release, "{\"leaseId\":\"%.*s\",\"actualCostCents\":1}", len, id + 11);
        lk_string_free(out);
        if (lk_governor_release(g, release, &out) != LK_OK) return 1;
        lk_string_free(out);
    }
    return 0;
}

static void test_threads(void) {
    LkGovernor *g = open_memory("{\"maxInFlight\":64,\"dailyBudgetCents\":100000,\"maxRequestsPerMinute\":100000}");
    thrd_t t[THREADS];
    for (int i = 0; i < THREADS; i++) CHECK(thrd_create(&t[i], acquire_release, g) == thrd_success);
    for (int i = 0; i < THREADS; i++) {
        int rc = 1;
        CHECK(thrd_join(t[i], &rc) == thrd_success && rc == 0);
    }
    char *out = NULL;
    char want[64];
    snprintf(want, sizeof want, "\"spendTodayCents\":%d", THREADS * PAIRS);
    CHECK(lk_governor_metrics(g, "{}", &out) == LK_OK);
    CHECK(takes(out, want));
    CHECK(lk_governor_metrics(g, "{}", &out) == LK_OK);
    CHECK(takes(out, "\"activeLeases\":0"));
    lk_governor_free(g);
}

int main(void) {
    static const struct {
        const char *name;
        void (*run)(void);
    } tests[] = {
        {"acquire_release_metrics", test_acquire_release_metrics},
        {"strict_call_and_lenient_handle", test_strict_call_and_lenient_handle},
        {"open_refusals", test_open_refusals},
        {"manual_clock", test_manual_clock},
        {"sqlite_restart", test_sqlite_restart},
        {"frames", test_frames},
        {"threads", test_threads},
    };
    int passed = 0, failed = 0;
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        failures_in_test = 0;
        tests[i].run();
        if (failures_in_test == 0) {
            passed++;
            printf("ok   %s\n", tests[i].name);
        } else {
            failed++;
            printf("FAIL %s (%d checks)\n", tests[i].name, failures_in_test);
        }
    }
    printf("governor: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}

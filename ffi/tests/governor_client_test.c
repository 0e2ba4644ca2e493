/*
 * Tests of the governor client's C ABI (lk_governor_client_*) against a REAL `leasekit serve`
 * daemon: ffi/tests/with-daemon.sh starts it on a temporary socket (memory store), runs
 * this program with the socket path as argv[1] and stops the daemon with SIGTERM. Covers
 * options, the strict typed call, the wire envelope, refusals, the local fallback of an
 * unreachable daemon, and threads sharing one client. Run under valgrind by scripts/test-c.sh.
 * Prints "governor-client: N passed, N failed".
 */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include "leasekit.h"

static int failures_in_test;
static const char *SOCKET;

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
    if (!found) fprintf(stderr, "  (last error was %s, wanted %s)\n", err ? err : "NULL", needle);
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

/* Copies the value of string field `field` of JSON `json` into `buf` ("" when absent). */
static void field(const char *json, const char *field, char *buf, size_t size) {
    char key[64];
    snprintf(key, sizeof key, "\"%s\":\"", field);
    const char *at = json ? strstr(json, key) : NULL;
    buf[0] = '\0';
    if (at) snprintf(buf, size, "%.*s", (int)strcspn(at + strlen(key), "\""), at + strlen(key));
}

static LkGovernorClient *client(const char *socket, const char *options) {
    LkGovernorClient *c = NULL;
    if (lk_governor_client_connect(socket, options, &c) != LK_OK) return NULL;
    return c;
}

static const char *OFF = "{\"fallback\":\"off\",\"timeoutMs\":5000}";
static const char *ACQUIRE = "{\"actorId\":\"c-client\",\"workspaceId\":\"ws-c\",\"estimatedCostCents\":7}";

static void test_acquire_release_metrics(void) {
    LkGovernorClient *c = client(SOCKET, OFF);
    CHECK(c != NULL);
    char *out = NULL, id[96], release[192];
    CHECK(lk_governor_client_call(c, "Acquire", ACQUIRE, &out) == LK_OK);
    field(out, "leaseId", id, sizeof id);
    CHECK(out && strstr(out, "\"granted\":true") && id[0] != '\0');
    CHECK(strncmp(id, "local-", 6) != 0); /* the daemon's lease, not a fallback */
    lk_string_free(out);
    CHECK(lk_governor_client_call(c, "GetStatus", NULL, &out) == LK_OK);
    CHECK(takes(out, "\"activeLeases\""));
    snprintf(release, sizeof release, "{\"leaseId\":\"%s\",\"actualCostCents\":4}", id);
    CHECK(lk_governor_client_call(c, "Release", release, &out) == LK_OK);
    CHECK(takes(out, "\"classification\":\"recorded\""));
    /* A second release of the same lease is the daemon's answer, not a transport error. */
    CHECK(lk_governor_client_call(c, "Release", release, &out) == LK_OK);
    lk_string_free(out);
    CHECK(lk_governor_client_call(c, "GetMetrics", "{}", &out) == LK_OK);
    CHECK(out && strstr(out, "\"activeLeases\":0"));
    CHECK(takes(out, "\"spendTodayCents\":4"));
    CHECK(lk_governor_client_call(c, "VerifyAudit", NULL, &out) == LK_OK);
    CHECK(takes(out, "\"ok\":true"));
    lk_governor_client_free(c);
}

static void test_strict_call_refusals(void) {
    LkGovernorClient *c = client(SOCKET, OFF);
    char *out = (char *)"sentinel";
    /* A misspelt field is refused before anything is sent. */
    CHECK(lk_governor_client_call(c, "Acquire", "{\"actorId\":\"a\",\"estimatedCost\":5}", &out) == LK_INVALID_REQUEST);
    CHECK(out == NULL);
    CHECK(last_error_has("estimatedCost"));
    CHECK(lk_governor_client_call(c, "Frobnicate", "{}", &out) == LK_INVALID_REQUEST);
    CHECK(lk_governor_client_call(c, "Acquire", "[1]", &out) == LK_INVALID_REQUEST);
    CHECK(lk_governor_client_call(c, "Acquire", "{\"estimatedCostCents\":-1}", &out) == LK_INVALID_REQUEST);
    CHECK(lk_governor_client_call(c, NULL, "{}", &out) == LK_INVALID_REQUEST);
    CHECK(lk_governor_client_call(NULL, "GetStatus", "{}", &out) == LK_INVALID_REQUEST);
    CHECK(lk_governor_client_call(c, "GetStatus", "{}", NULL) == LK_INVALID_REQUEST);
    CHECK(lk_governor_client_call(c, "GetStatus", "\xff{}", &out) == LK_INVALID_REQUEST);
    /* Nothing was counted by the refused calls. */
    CHECK(lk_governor_client_call(c, "GetMetrics", NULL, &out) == LK_OK);
    CHECK(takes(out, "\"activeLeases\":0"));
    lk_governor_client_free(c);
}

static void test_wire_envelope(void) {
    LkGovernorClient *c = client(SOCKET, OFF);
    char *out = NULL;
    CHECK(lk_governor_client_handle(c, "GetStatus", "{}", &out) == LK_OK);
    CHECK(out && strstr(out, "\"success\":true") && strstr(out, "\"payloadJson\""));
    lk_string_free(out);
    /* Unknown fields are ignored by the wire dispatcher, as the protocol does. */
    CHECK(lk_governor_client_handle(c, "GetMetrics", "{\"extra\":1}", &out) == LK_OK);
    CHECK(takes(out, "\"success\":true"));
    /* A refused command is an envelope, not a failed call. */
    CHECK(lk_governor_client_handle(c, "Frobnicate", "{}", &out) == LK_OK);
    CHECK(out && strstr(out, "\"success\":false"));
    CHECK(takes(out, "unknown_command"));
    CHECK(lk_governor_client_handle(c, "GetStatus", NULL, &out) == LK_OK);
    CHECK(takes(out, "\"success\":true"));
    lk_governor_client_free(c);
}

static void test_connect_options(void) {
    LkGovernorClient *c = (LkGovernorClient *)0x1;
    CHECK(lk_governor_client_connect(SOCKET, "{\"timeout\":5}", &c) == LK_INVALID_REQUEST);
    CHECK(c == NULL);
    CHECK(last_error_has("timeout"));
    CHECK(lk_governor_client_connect(SOCKET, "{\"fallback\":\"sometimes\"}", &c) == LK_INVALID_REQUEST);
    CHECK(lk_governor_client_connect(SOCKET, "{\"timeoutMs\":0}", &c) == LK_INVALID_REQUEST);
    CHECK(lk_governor_client_connect(SOCKET, "not json", &c) == LK_INVALID_REQUEST);
    CHECK(lk_governor_client_connect(SOCKET, NULL, NULL) == LK_INVALID_REQUEST);
    /* NULL options: the defaults (prod fallback, 10 s). */
    CHECK(lk_governor_client_connect(SOCKET, NULL, &c) == LK_OK && c != NULL);
    char *out = NULL;
    CHECK(lk_governor_client_call(c, "GetStatus", NULL, &out) == LK_OK);
    lk_string_free(out);
    lk_governor_client_free(c);
    lk_governor_client_free(NULL);
}

/* A socket path where nothing listens: next to the daemon's, never created. */
static void absent_socket(char *buf, size_t size) {
    snprintf(buf, size, "%s.absent", SOCKET);
}

static void test_unreachable_daemon_and_fallback(void) {
    char absent[512];
    absent_socket(absent, sizeof absent);
    char *out = NULL;
    LkGovernorClient *off = client(absent, OFF);
    CHECK(off != NULL);
    CHECK(lk_governor_client_call(off, "Acquire", ACQUIRE, &out) == LK_INTERNAL_ERROR);
    CHECK(last_error_has("daemon_unreachable"));
    CHECK(lk_governor_client_call(off, "GetStatus", NULL, &out) == LK_INTERNAL_ERROR);
    CHECK(lk_governor_client_handle(off, "GetStatus", NULL, &out) == LK_OK);
    CHECK(takes(out, "\"success\":false"));
    lk_governor_client_free(off);

    /* prod fallback: a small read-only chat is granted locally, anything risky is denied. */
    LkGovernorClient *prod = client(absent, "{\"fallback\":\"prod\",\"timeoutMs\":2000}");
    CHECK(lk_governor_client_call(prod, "Acquire", "{\"actorId\":\"a\",\"maxOutputTokens\":100}", &out) == LK_OK);
    char id[96], release[192];
    field(out, "leaseId", id, sizeof id);
    CHECK(out && strstr(out, "\"granted\":true") && strstr(out, "\"degradedMode\":true"));
    CHECK(strncmp(id, "local-", 6) == 0);
    lk_string_free(out);
    snprintf(release, sizeof release, "{\"leaseId\":\"%s\",\"actualCostCents\":1}", id);
    CHECK(lk_governor_client_call(prod, "Release", release, &out) == LK_OK);
    CHECK(takes(out, "local fallback release recorded"));
    CHECK(lk_governor_client_call(prod, "Acquire",
                                  "{\"actorId\":\"a\",\"requestedCapabilities\":[\"exec\"]}", &out) == LK_OK);
    CHECK(out && strstr(out, "\"granted\":false"));
    CHECK(takes(out, "service_unavailable_prod_deny_risky"));
    /* Commands other than Acquire never fall back. */
    CHECK(lk_governor_client_call(prod, "GetMetrics", NULL, &out) == LK_INTERNAL_ERROR);
    lk_governor_client_free(prod);

    LkGovernorClient *dev = client(absent, "{\"fallback\":\"dev\"}");
    CHECK(lk_governor_client_call(dev, "Acquire", "{\"actorId\":\"a\",\"maxOutputTokens\":257}", &out) == LK_OK);
    CHECK(takes(out, "service_unavailable_dev_cap"));
    lk_governor_client_free(dev);
}

enum { THREADS = 4, PAIRS = 25 };

static int acquire_release(void *arg) {
    LkGovernorClient *c = arg;
    for (int i = 0; i < PAIRS; i++) {
        char *out = NULL, id[96], release[192];
        if (lk_governor_client_call(c, "Acquire", "{\"actorId\":\"t\",\"workspaceId\":\"w-threads\",\"estimatedCostCents\":2}", &out) != LK_OK)
            return 1;
        field(out, "leaseId", id, sizeof id);
        bool granted = strstr(out, "\"granted\":true") != NULL;
        lk_string_free(out);
        if (!granted || id[0] == '\0') return 1;
        snprintf(release, sizeof release, "{\"leaseId\":\"%s\",\"actualCostCents\":1}", id);
        if (lk_governor_client_call(c, "Release", release, &out) != LK_OK) return 1;
        lk_string_free(out);
    }
    return 0;
}

static void test_threads_share_one_client(void) {
    LkGovernorClient *c = client(SOCKET, OFF);
    char *out = NULL;
    CHECK(lk_governor_client_call(c, "GetMetrics", NULL, &out) == LK_OK);
    const char *at = out ? strstr(out, "\"spendTodayCents\":") : NULL;
    long before = at ? strtol(at + 18, NULL, 10) : -1;
    lk_string_free(out);
    thrd_t t[THREADS];
    for (int i = 0; i < THREADS; i++) CHECK(thrd_create(&t[i], acquire_release, c) == thrd_success);
    for (int i = 0; i < THREADS; i++) {
        int rc = 1;
        CHECK(thrd_join(t[i], &rc) == thrd_success && rc == 0);
    }
    char want[64];
    snprintf(want, sizeof want, "\"spendTodayCents\":%ld", before + THREADS * PAIRS);
    CHECK(lk_governor_client_call(c, "GetMetrics", "{}", &out) == LK_OK);
    CHECK(out && strstr(out, "\"activeLeases\":0"));
    CHECK(takes(out, want));
    lk_governor_client_free(c);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s SOCKET (see with-daemon.sh)\n", argv[0]);
        printf("governor-client: 0 passed, 1 failed\n");
        return 2;
    }
    SOCKET = argv[1];
    static const struct {
        const char *name;
        void (*run)(void);
    } tests[] = {
        {"acquire_release_metrics", test_acquire_release_metrics},
        {"strict_call_refusals", test_strict_call_refusals},
        {"wire_envelope", test_wire_envelope},
        {"connect_options", test_connect_options},
        {"unreachable_daemon_and_fallback", test_unreachable_daemon_and_fallback},
        {"threads_share_one_client", test_threads_share_one_client},
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
    printf("governor-client: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}

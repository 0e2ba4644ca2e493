/*
 * Tests of the leasekit C ABI as a C caller sees it: status codes, the thread-local
 * last error, NULL and invalid UTF-8 arguments, out-parameters, handles, guards,
 * budgets, delegation and narrowing. Run under valgrind by scripts/test-c.sh.
 * Prints "capi: N passed, N failed" (one count per test function).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include "leasekit.h"

static int failures_in_test;

#define CHECK(cond)                                                          \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
            failures_in_test++;                                              \
        }                                                                    \
    } while (0)

/* Whether the last error's JSON holds `needle`. */
static bool last_error_has(const char *needle) {
    char *err = lk_last_error_json();
    bool found = err && strstr(err, needle) != NULL;
    lk_string_free(err);
    return found;
}

static LkLease *lease(const char *json) {
    LkLease *l = NULL;
    if (lk_lease_from_json(json, &l) != LK_OK) return NULL;
    return l;
}

static void test_status_names_and_retryable(void) {
    CHECK(strcmp(lk_status_name(LK_OK), "OK") == 0);
    CHECK(strcmp(lk_status_name(LK_PERMISSION_DENIED), "PERMISSION_DENIED") == 0);
    CHECK(strcmp(lk_status_name(LK_INTERNAL_ERROR), "INTERNAL_ERROR") == 0);
    CHECK(lk_status_name(-1) == NULL);
    CHECK(lk_status_name((int32_t)lk_error_code_count() + 1) == NULL);
    CHECK(lk_error_code_count() == 15);
    CHECK(lk_status_retryable(LK_TIMEOUT) && lk_status_retryable(LK_HEARTBEAT_LOST));
    CHECK(lk_status_retryable(LK_INTERNAL_ERROR));
    CHECK(!lk_status_retryable(LK_PERMISSION_DENIED) && !lk_status_retryable(LK_OK));
}

static void test_null_arguments_are_invalid_request(void) {
    bool b = true;
    char *s = (char *)"sentinel";
    CHECK(lk_is_valid_capability_name(NULL, &b) == LK_INVALID_REQUEST);
    CHECK(b == false); /* out-parameter reset on failure */
    CHECK(last_error_has("\"code\":\"INVALID_REQUEST\"") && last_error_has("name is a NULL pointer"));
    CHECK(lk_is_valid_capability_name("fs.read", NULL) == LK_INVALID_REQUEST);
    CHECK(lk_canonicalize_target("fs.read", NULL, &s) == LK_INVALID_REQUEST);
    CHECK(s == NULL);
    CHECK(lk_lease_to_json(NULL, &s) == LK_INVALID_REQUEST && s == NULL);
    CHECK(lk_guard_authorize(NULL, "fs.read", "/a", NULL) == LK_INVALID_REQUEST);
    CHECK(lk_budget_sum(NULL, 2, &s) == LK_INVALID_REQUEST);
    CHECK(lk_budget_sum(NULL, 0, &s) == LK_OK && s && strcmp(s, "{}") == 0);
    lk_string_free(s);
    /* free functions accept NULL */
    lk_string_free(NULL);
    lk_lease_free(NULL);
    lk_guard_free(NULL);
}

static void test_invalid_utf8_is_invalid_request(void) {
    char *s = NULL;
    CHECK(lk_canonicalize_target("fs.read", "/a/\xff\xfe", &s) == LK_INVALID_REQUEST);
    CHECK(s == NULL);
    CHECK(last_error_has("not valid UTF-8"));
    LkLease *l = NULL;
    CHECK(lk_lease_from_json("{\"fs.read\": [\"/\xc3\"]}", &l) == LK_INVALID_REQUEST && l == NULL);
    /* A lone UTF-16 surrogate: as generalized UTF-8 bytes (ED A0 80), or as a JSON escape. */
    CHECK(lk_canonicalize_target("fs.read", "/a/\xed\xa0\x80", &s) == LK_INVALID_REQUEST && s == NULL);
    CHECK(last_error_has("not valid UTF-8"));
    bool valid = true;
    CHECK(lk_is_valid_capability_name("x-vendor.a\xed\xb0\x80", &valid) == LK_INVALID_REQUEST && !valid);
    CHECK(lk_lease_from_json("{\"fs.read\": [\"/a/\xed\xa0\x80\"]}", &l) == LK_INVALID_REQUEST && l == NULL);
    CHECK(lk_lease_from_json("{\"fs.read\": [\"/a/\\ud800\"]}", &l) == LK_INVALID_REQUEST && l == NULL);
    CHECK(lk_lease_from_json("{\"tool.call\": [\"\\udc00\"]}", &l) == LK_INVALID_REQUEST && l == NULL);
    CHECK(lk_lease_from_json("{\"tool.call\": [\"web.\\ud83d\\ude00\"]}", &l) == LK_OK && l != NULL);
    lk_lease_free(l);
}

static void test_success_clears_last_error(void) {
    bool valid = false;
    CHECK(lk_is_valid_capability_name(NULL, &valid) == LK_INVALID_REQUEST);
    CHECK(lk_last_error_code() == LK_INVALID_REQUEST);
    CHECK(lk_is_valid_capability_name("x-vendor.acme.cap", &valid) == LK_OK && valid);
    CHECK(lk_last_error_json() == NULL);
    CHECK(lk_last_error_code() == LK_OK);
}

static void test_names_canonicalize_match(void) {
    bool b = false;
    CHECK(lk_is_reserved_capability_name("model.use", &b) == LK_OK && b);
    CHECK(lk_is_reserved_capability_name("x-vendor.acme.cap", &b) == LK_OK && !b);
    CHECK(lk_is_valid_capability_name("acme.foo", &b) == LK_OK && !b);
    char *s = NULL;
    CHECK(lk_canonicalize_target("fs.read", "/a//b/./c/../d/", &s) == LK_OK && s && strcmp(s, "/a/b/d") == 0);
    lk_string_free(s);
    CHECK(lk_canonicalize_target("net.fetch", "HTTPS://API.Example.com:443/x#frag", &s) == LK_OK && s &&
          strcmp(s, "https://api.example.com/x") == 0);
    lk_string_free(s);
    CHECK(lk_canonicalize_target("net.fetch", "https://user@evil.com/", &s) == LK_INVALID_REQUEST && s == NULL);
    CHECK(lk_validate_pattern("net.fetch", "HTTPS://API.example.com:443", &s) == LK_OK && s &&
          strcmp(s, "https://api.example.com/") == 0);
    lk_string_free(s);
    CHECK(lk_match_pattern("tool.call", "web.*", "web.search", &b) == LK_OK && b);
    CHECK(lk_match_pattern("tool.call", "web.*", "web.search.advanced", &b) == LK_OK && !b);
    CHECK(lk_match_pattern("fs.read", "/a/***", "/a/b", &b) == LK_INVALID_REQUEST);
}

static void test_lease_json_round_trip(void) {
    LkLease *l = lease("{\"net.fetch\": [\"HTTPS://API.example.com:443\"], \"cost.budget\": [\"USD:1.50\", \"USD:0.50\"]}");
    CHECK(l != NULL);
    char *s = NULL;
    CHECK(lk_lease_to_json(l, &s) == LK_OK && s && strstr(s, "https://api.example.com/") != NULL);
    lk_string_free(s);
    CHECK(lk_lease_budget_json(l, &s) == LK_OK && s && strcmp(s, "{\"USD\":\"2\"}") == 0);
    lk_string_free(s);
    lk_lease_free(l);
    LkLease *bad = (LkLease *)1;
    CHECK(lk_lease_from_json("{\"fs.read\": \"/a\"}", &bad) == LK_INVALID_REQUEST && bad == NULL);
    CHECK(lk_lease_from_json("not json", &bad) == LK_INVALID_REQUEST);
    CHECK(lk_validate_lease_shape("{\"fs.read\": [\"relative\"]}") == LK_INVALID_REQUEST);
    CHECK(lk_validate_lease_shape("{\"fs.read\": []}") == LK_OK);
}

static void test_budgets_and_decimals(void) {
    char *s = NULL;
    CHECK(lk_budget_parse("USD:2.50", &s) == LK_OK && s && strcmp(s, "{\"currency\":\"USD\",\"amount\":\"2.5\"}") == 0);
    lk_string_free(s);
    CHECK(lk_budget_parse("USD:-1", &s) == LK_INVALID_REQUEST && s == NULL);
    const char *entries[] = {"USD:0.1", "USD:0.2", "EUR:1"};
    CHECK(lk_budget_sum(entries, 3, &s) == LK_OK && s && strcmp(s, "{\"EUR\":\"1\",\"USD\":\"0.3\"}") == 0);
    lk_string_free(s);
    CHECK(lk_amount_normalize("2.500", &s) == LK_OK && s && strcmp(s, "2.5") == 0);
    lk_string_free(s);
    int32_t cmp = 9;
    CHECK(lk_decimal_compare("0.30", "0.3", &cmp) == LK_OK && cmp == 0);
    CHECK(lk_decimal_compare("-0.5", "0.1", &cmp) == LK_OK && cmp == -1);
    CHECK(lk_decimal_compare("10", "9.999", &cmp) == LK_OK && cmp == 1);
    CHECK(lk_decimal_compare("1e3", "1", &cmp) == LK_INVALID_REQUEST);
}

static void test_expiry(void) {
    char *s = NULL;
    CHECK(lk_parse_expires_at("2030-01-01T00:00:00.500000000Z", &s) == LK_OK && s &&
          strcmp(s, "2030-01-01T00:00:00.5Z") == 0);
    lk_string_free(s);
    CHECK(lk_parse_expires_at("2030-01-01T00:00:00+00:00", &s) == LK_INVALID_REQUEST);
    CHECK(lk_validate_expires_at("2030-01-01T00:00:00Z", "2029-12-31T23:59:59Z") == LK_OK);
    CHECK(lk_validate_expires_at("2030-01-01T00:00:00Z", "2030-01-01T00:00:00Z") == LK_INVALID_REQUEST);
    CHECK(lk_validate_lease_constraints("{\"expires_at\": \"2000-01-01T00:00:00Z\"}", NULL) == LK_INVALID_REQUEST);
    CHECK(lk_validate_lease_constraints(NULL, NULL) == LK_OK);
}

static void test_guard_authorize_and_expiry(void) {
    LkLease *l = lease("{\"fs.read\": [\"/data/**\"], \"model.use\": [\"gpt-4*\"]}");
    LkGuard *g = NULL;
    CHECK(lk_guard_new_manual_clock(l, "{\"expires_at\": \"2030-01-01T00:00:00Z\"}", NULL,
                                    "2029-12-31T23:59:00Z", &g) == LK_OK);
    lk_lease_free(l); /* the guard keeps its own copy */
    char *s = NULL;
    CHECK(lk_guard_authorize(g, "fs.read", "/data/x/../y", &s) == LK_OK && s && strcmp(s, "/data/y") == 0);
    lk_string_free(s);
    CHECK(lk_guard_authorize(g, "fs.read", "/etc/passwd", &s) == LK_PERMISSION_DENIED && s == NULL);
    CHECK(last_error_has("PERMISSION_DENIED"));
    CHECK(lk_guard_authorize(g, "fs.write", "/data/y", NULL) == LK_PERMISSION_DENIED);
    CHECK(lk_guard_authorize_model(g, "gpt-4.1", NULL) == LK_OK);
    CHECK(lk_guard_authorize_model(g, "claude", NULL) == LK_PERMISSION_DENIED);
    CHECK(lk_guard_expires_at(g, &s) == LK_OK && s && strcmp(s, "2030-01-01T00:00:00Z") == 0);
    lk_string_free(s);
    CHECK(lk_guard_set_time(g, "2030-01-01T00:00:00Z") == LK_OK);
    CHECK(lk_guard_authorize(g, "fs.read", "/data/y", NULL) == LK_LEASE_EXPIRED);
    CHECK(lk_guard_set_time(g, "yesterday") == LK_INVALID_REQUEST);
    lk_guard_free(g);

    l = lease("{\"tool.call\": [\"web.*\"]}");
    CHECK(lk_guard_new(l, NULL, "{\"allow_any_model\": true}", &g) == LK_OK);
    CHECK(lk_guard_authorize_model(g, "anything", NULL) == LK_OK);
    CHECK(lk_guard_set_time(g, "2030-01-01T00:00:00Z") == LK_INVALID_REQUEST); /* system clock */
    CHECK(lk_guard_expires_at(g, &s) == LK_OK && s == NULL);
    lk_guard_free(g);
    CHECK(lk_guard_new(l, NULL, "{\"bogus\": 1}", &g) == LK_INVALID_REQUEST && g == NULL);
    CHECK(lk_guard_new(l, "{\"expires_at\": \"soon\"}", NULL, &g) == LK_INVALID_REQUEST && g == NULL);
    lk_lease_free(l);
}

static void test_guard_budget(void) {
    LkLease *l = lease("{\"tool.call\": [\"**\"], \"cost.budget\": [\"USD:1.00\"]}");
    LkGuard *g = NULL;
    CHECK(lk_guard_new(l, NULL, NULL, &g) == LK_OK);
    char *s = NULL;
    CHECK(lk_guard_record_metric(g, "cost.llm", "0.10", "USD", &s) == LK_OK && s &&
          strstr(s, "\"cost.budget.remaining\"") && strstr(s, "\"0.9\""));
    lk_string_free(s);
    CHECK(lk_guard_record_metric(g, "cost.llm", "-1", "USD", &s) == LK_INVALID_REQUEST && s == NULL);
    CHECK(lk_guard_reserve(g, "USD", "5", NULL) == LK_BUDGET_EXHAUSTED);
    CHECK(lk_guard_reserve(g, "EUR", "1", NULL) == LK_INVALID_REQUEST);
    CHECK(lk_guard_reserve(g, "USD", "0.40", NULL) == LK_OK);
    CHECK(lk_guard_remaining(g, &s) == LK_OK && s && strcmp(s, "{\"USD\":\"0.5\"}") == 0);
    lk_string_free(s);
    CHECK(lk_guard_record_metric(g, "cost.llm", "0.75", "USD", NULL) == LK_OK); /* overspend is recorded */
    CHECK(lk_guard_remaining(g, &s) == LK_OK && s && strcmp(s, "{\"USD\":\"-0.25\"}") == 0);
    lk_string_free(s);
    CHECK(lk_guard_authorize(g, "tool.call", "x", NULL) == LK_BUDGET_EXHAUSTED);
    lk_guard_free(g);
    lk_lease_free(l);
}

static void test_subset_and_delegation(void) {
    LkLease *parent = lease("{\"fs.read\": [\"/a/*\"], \"cost.budget\": [\"USD:10\"]}");
    LkLease *child = lease("{\"fs.read\": [\"/a/b\"], \"cost.budget\": [\"USD:4\"]}");
    LkLease *wide = lease("{\"fs.read\": [\"/a/**\"]}");
    bool b = false;
    CHECK(lk_lease_is_subset(child, parent, NULL, &b) == LK_OK && b);
    CHECK(lk_lease_is_subset(wide, parent, NULL, &b) == LK_OK && !b);
    CHECK(lk_lease_is_subset(child, parent, "{\"parent_remaining\": {\"USD\": \"3\"}}", &b) == LK_OK && !b);
    CHECK(lk_lease_is_subset(child, parent, "{\"parent_remaining\": {\"USD\": 3}}", &b) == LK_INVALID_REQUEST);
    /* One rule for caller-given amounts (leasekit::wire): signed, at most 9 fraction digits. */
    CHECK(lk_lease_is_subset(child, parent, "{\"parent_remaining\": {\"USD\": \"-0.5\"}}", &b) == LK_OK && !b);
    CHECK(lk_lease_is_subset(child, parent, "{\"parent_remaining\": {\"USD\": \"4.000000000\"}}", &b) == LK_OK && b);
    CHECK(lk_lease_is_subset(child, parent, "{\"parent_remaining\": {\"USD\": \"4.0000000000\"}}", &b) == LK_INVALID_REQUEST);
    CHECK(lk_lease_is_subset(child, parent, "{\"parentRemaining\": {\"USD\": \"4\"}}", &b) == LK_INVALID_REQUEST);
    CHECK(lk_lease_is_subset(child, parent, "[{\"USD\": \"4\"}]", &b) == LK_INVALID_REQUEST);
    CHECK(lk_lease_check_subset(child, parent, NULL) == LK_OK);
    CHECK(lk_lease_check_subset(wide, parent, NULL) == LK_LEASE_SUBSET_VIOLATION);
    CHECK(last_error_has("\"witness\""));

    LkGuard *g = NULL, *c = NULL;
    CHECK(lk_guard_new(parent, NULL, NULL, &g) == LK_OK);
    CHECK(lk_guard_delegate(g, wide, NULL, &c) == LK_LEASE_SUBSET_VIOLATION && c == NULL);
    CHECK(lk_guard_delegate(g, child, NULL, &c) == LK_OK && c != NULL);
    char *s = NULL;
    CHECK(lk_guard_remaining(g, &s) == LK_OK && s && strcmp(s, "{\"USD\":\"6\"}") == 0);
    lk_string_free(s);
    CHECK(lk_guard_record_metric(c, "cost.x", "1", "USD", NULL) == LK_OK);
    CHECK(lk_guard_close(c, &s) == LK_OK && s != NULL);
    lk_string_free(s);
    CHECK(lk_guard_is_closed(c, &b) == LK_OK && b);
    CHECK(lk_guard_remaining(g, &s) == LK_OK && s && strcmp(s, "{\"USD\":\"9\"}") == 0);
    lk_string_free(s);
    LkLease *copy = NULL;
    CHECK(lk_guard_lease(c, &copy) == LK_OK && copy != NULL);
    CHECK(lk_lease_is_subset(copy, child, NULL, &b) == LK_OK && b);
    lk_lease_free(copy);
    lk_guard_free(c);
    lk_guard_free(g);
    lk_lease_free(parent);
    lk_lease_free(child);
    lk_lease_free(wide);
}

static void test_narrow(void) {
    LkLease *requested = lease("{\"fs.read\": [\"/data/**\"], \"net.fetch\": [\"https://x.com/**\"]}");
    LkLease *ceiling = lease("{\"fs.read\": [\"/data/public/**\"]}");
    LkLease *out = NULL;
    char *reductions = NULL, *s = NULL;
    CHECK(lk_narrow_lease(requested, ceiling, &out, &reductions) == LK_OK && out && reductions);
    CHECK(reductions && strstr(reductions, "net.fetch") != NULL);
    CHECK(lk_lease_to_json(out, &s) == LK_OK && s && strstr(s, "/data/public/**") && !strstr(s, "net.fetch"));
    lk_string_free(s);
    lk_string_free(reductions);
    lk_lease_free(out);
    lk_lease_free(requested);
    lk_lease_free(ceiling);
    CHECK(lk_narrow_constraints("{\"expires_at\": \"2030-01-01T00:00:00Z\"}", "{\"expires_at\": \"2029-01-01T00:00:00Z\"}",
                                &s) == LK_OK && s && strstr(s, "2029-01-01T00:00:00Z"));
    lk_string_free(s);
}

static void test_length_variants_reject_embedded_nul(void) {
    static const char target[] = "/a\0/../etc/passwd"; /* a C string would stop at the NUL */
    char *s = NULL;
    bool b = true;
    CHECK(lk_canonicalize_target("fs.read", target, &s) == LK_OK && s && strcmp(s, "/a") == 0);
    lk_string_free(s);
    CHECK(lk_canonicalize_target_n("fs.read", 7, target, sizeof target - 1, &s) == LK_INVALID_REQUEST && s == NULL);
    CHECK(lk_canonicalize_target_n("fs.read", 7, "/a/b/", 5, &s) == LK_OK && s && strcmp(s, "/a/b") == 0);
    lk_string_free(s);
    CHECK(lk_canonicalize_target_n("fs.read", 7, NULL, 3, &s) == LK_INVALID_REQUEST);
    CHECK(lk_canonicalize_target_n("fs.read", 7, NULL, 0, &s) == LK_INVALID_REQUEST); /* empty target */
    CHECK(lk_is_valid_capability_name_n("fs.read\0", 8, &b) == LK_OK && !b);
    CHECK(lk_is_valid_capability_name_n("fs.readXYZ", 7, &b) == LK_OK && b);
    CHECK(lk_is_reserved_capability_name_n("fs.read", 7, &b) == LK_OK && b);
    CHECK(lk_is_reserved_capability_name_n("fs.\xff", 4, &b) == LK_INVALID_REQUEST);
    CHECK(lk_match_pattern_n("fs.read", 7, "/a/*", 4, "/a/b", 4, &b) == LK_OK && b);
    CHECK(lk_match_pattern_n("fs.read", 7, "/a\0", 3, "/a", 2, &b) == LK_INVALID_REQUEST);

    LkLease *l = lease("{\"fs.read\": [\"/a/**\"], \"model.use\": [\"gpt-4*\"]}");
    LkGuard *g = NULL;
    CHECK(lk_guard_new(l, NULL, NULL, &g) == LK_OK);
    CHECK(lk_guard_authorize_n(g, "fs.read", 7, "/a/x", 4, &s) == LK_OK && s && strcmp(s, "/a/x") == 0);
    lk_string_free(s);
    CHECK(lk_guard_authorize_n(g, "fs.read", 7, target, sizeof target - 1, NULL) == LK_INVALID_REQUEST);
    CHECK(lk_guard_authorize_model_n(g, "gpt-4o", 6, NULL) == LK_OK);
    CHECK(lk_guard_authorize_model_n(g, "gpt-4\0", 6, NULL) == LK_INVALID_REQUEST);
    lk_guard_free(g);
    lk_lease_free(l);
}

static const char AGENTFILE[] =
    "AGENT demo\n"
    "TOOL utcp:file_read\n"
    "MOUNT /workspace ro\n"
    "CRED token env:TOKEN host:api.example.com\n"
    "ALLOW invoke utcp:file_read\n"
    "DENY invoke utcp:shell\n";

static void test_agentfile(void) {
    LkAgentfile *af = NULL, *child = NULL;
    char *s = NULL;
    CHECK(lk_agentfile_parse(AGENTFILE, false, &af) == LK_OK && af != NULL);
    CHECK(lk_agentfile_lint(af, &s) == LK_OK && s && s[0] == '[' && !strstr(s, "\"severity\":\"error\""));
    lk_string_free(s);
    CHECK(lk_agentfile_to_json(af, &s) == LK_OK && s && strstr(s, "demo") != NULL);
    lk_string_free(s);
    s = NULL;
    CHECK(lk_agentfile_package_digest(af, &s) == LK_OK && s && strncmp(s, "sha256:", 7) == 0 && strlen(s) == 7 + 64);
    lk_string_free(s);
    s = NULL;
    CHECK(lk_agentfile_package_digest(NULL, &s) == LK_INVALID_REQUEST && s == NULL);
    LkLease *l = NULL;
    CHECK(lk_agentfile_lease(af, &l) == LK_OK && l != NULL);
    CHECK(lk_lease_to_json(l, &s) == LK_OK && s && strstr(s, "\"/workspace/**\"") && strstr(s, "utcp:file_read"));
    lk_string_free(s);
    lk_lease_free(l);
    CHECK(lk_agentfile_lock(af, &s) == LK_OK && s && strstr(s, "token") != NULL);
    lk_string_free(s);
    CHECK(lk_agentfile_evaluate_policy(af, "AgentRC::Agent::\"demo\"", "AgentRC::Action::\"tool.invoke\"",
                                       "AgentRC::Tool::\"utcp:file_read\"", NULL, &s) == LK_OK &&
          s && strstr(s, "\"allowed\":true"));
    lk_string_free(s);
    CHECK(lk_agentfile_evaluate_policy(af, "AgentRC::Agent::\"demo\"", "AgentRC::Action::\"tool.invoke\"",
                                       "AgentRC::Tool::\"utcp:shell\"", "{}", &s) == LK_OK &&
          s && strstr(s, "\"allowed\":false"));
    lk_string_free(s);
    CHECK(lk_agentfile_evaluate_policy(af, "AgentRC::Agent::\"demo\"", "AgentRC::Action::\"tool.invoke\"",
                                       "AgentRC::Tool::\"utcp:file_read\"", "not json", &s) == LK_INVALID_REQUEST &&
          s == NULL);
    /* a child that only narrows (keeping the DENY) is fine; one that widens is a violation */
    CHECK(lk_agentfile_parse("AGENT demo\nTOOL utcp:file_read\nDENY invoke utcp:shell\n", false, &child) == LK_OK);
    CHECK(lk_agentfile_check_inheritance(af, child) == LK_OK);
    lk_agentfile_free(child);
    CHECK(lk_agentfile_parse("AGENT demo\nTOOL utcp:shell\nDENY invoke utcp:shell\n", false, &child) == LK_OK);
    CHECK(lk_agentfile_check_inheritance(af, child) == LK_LEASE_SUBSET_VIOLATION);
    lk_agentfile_free(child);
    lk_agentfile_free(af);
    lk_agentfile_free(NULL);

    CHECK(lk_agentfile_check("agent demo\n", false, &s) == LK_OK && s && strstr(s, "\"ok\":false") &&
          strstr(s, "lowercase-directive"));
    lk_string_free(s);
    CHECK(lk_agentfile_check(AGENTFILE, false, &s) == LK_OK && s && strstr(s, "\"ok\":true"));
    lk_string_free(s);
    /* a literal secret on a CRED line is an error and never echoed back */
    CHECK(lk_agentfile_check("AGENT demo\nCRED token hunter2secret host:api.example.com\n", false, &s) == LK_OK &&
          s && strstr(s, "\"ok\":false") && !strstr(s, "hunter2secret"));
    lk_string_free(s);
    CHECK(lk_agentfile_parse(NULL, false, &af) == LK_INVALID_REQUEST && af == NULL);
}

/* ---- threads: the last error is per thread; a guard is shared safely ---- */

static int fail_on_other_thread(void *arg) {
    (void)arg;
    char *s = NULL;
    LkStatus st = lk_canonicalize_target("fs.read", "relative", &s);
    return st == LK_INVALID_REQUEST && lk_last_error_code() == LK_INVALID_REQUEST ? 0 : 1;
}

static int spend_cents(void *arg) {
    const LkGuard *g = arg;
    int failed = 0;
    for (int i = 0; i < 200; i++) {
        if (lk_guard_record_metric(g, "cost.call", "0.01", "USD", NULL) != LK_OK) failed++;
    }
    return failed;
}

static void test_threads(void) {
    CHECK(lk_is_reserved_capability_name("fs.read", &(bool){false}) == LK_OK);
    thrd_t t;
    int rc = 1;
    CHECK(thrd_create(&t, fail_on_other_thread, NULL) == thrd_success);
    CHECK(thrd_join(t, &rc) == thrd_success && rc == 0);
    CHECK(lk_last_error_code() == LK_OK); /* this thread's last call succeeded */

    LkLease *l = lease("{\"cost.budget\": [\"USD:100\"]}");
    LkGuard *g = NULL;
    CHECK(lk_guard_new(l, NULL, NULL, &g) == LK_OK);
    thrd_t a, b;
    int ra = 1, rb = 1;
    CHECK(thrd_create(&a, spend_cents, g) == thrd_success && thrd_create(&b, spend_cents, g) == thrd_success);
    CHECK(thrd_join(a, &ra) == thrd_success && thrd_join(b, &rb) == thrd_success && ra == 0 && rb == 0);
    char *s = NULL;
    CHECK(lk_guard_remaining(g, &s) == LK_OK && s && strcmp(s, "{\"USD\":\"96\"}") == 0);
    lk_string_free(s);
    lk_guard_free(g);
    lk_lease_free(l);
}

static void test_lint_lease(void) {
    char *out = NULL;
    CHECK(lk_lint_lease("{\"net.fetch\":[\"https://api.example.com**\",\"*://api.example.com/**\"],"
                        "\"fs.read\":[\"/workspace/**\"]}", &out) == LK_OK);
    CHECK(out && strstr(out, "\"code\":\"host-open-suffix\""));
    CHECK(out && strstr(out, "\"code\":\"scheme-wildcard\""));
    CHECK(out && strstr(out, "\"pattern\":\"https://api.example.com**\"") && strstr(out, "\"hint\":"));
    CHECK(out && !strstr(out, "/workspace/**"));
    lk_string_free(out);
    CHECK(lk_lint_lease("{\"fs.read\":[\"/workspace/**\"],\"net.fetch\":[\"https://api.example.com/v1/**\"]}", &out) == LK_OK);
    CHECK(out && strcmp(out, "{\"warnings\":[]}") == 0);
    lk_string_free(out);
    out = (char *)"sentinel";
    CHECK(lk_lint_lease("{\"fs.read\":\"/x\"}", &out) == LK_INVALID_REQUEST);
    CHECK(out == NULL);
    CHECK(lk_lint_lease("not json", &out) == LK_INVALID_REQUEST);
    CHECK(lk_lint_lease(NULL, &out) == LK_INVALID_REQUEST);
    CHECK(lk_lint_lease("{}", NULL) == LK_INVALID_REQUEST);
}

int main(void) {
    static const struct {
        const char *name;
        void (*run)(void);
    } tests[] = {
        {"status_names_and_retryable", test_status_names_and_retryable},
        {"null_arguments_are_invalid_request", test_null_arguments_are_invalid_request},
        {"invalid_utf8_is_invalid_request", test_invalid_utf8_is_invalid_request},
        {"success_clears_last_error", test_success_clears_last_error},
        {"names_canonicalize_match", test_names_canonicalize_match},
        {"lease_json_round_trip", test_lease_json_round_trip},
        {"budgets_and_decimals", test_budgets_and_decimals},
        {"expiry", test_expiry},
        {"guard_authorize_and_expiry", test_guard_authorize_and_expiry},
        {"guard_budget", test_guard_budget},
        {"subset_and_delegation", test_subset_and_delegation},
        {"narrow", test_narrow},
        {"length_variants_reject_embedded_nul", test_length_variants_reject_embedded_nul},
        {"agentfile", test_agentfile},
        {"threads", test_threads},
        {"lint_lease", test_lint_lease},
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
    printf("capi: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}

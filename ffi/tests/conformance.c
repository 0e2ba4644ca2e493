/*
 * C conformance runner: loads every vector of conformance/vectors (or $LEASEKIT_VECTORS)
 * and runs it through the leasekit C API, exactly as conformance/README.md says.
 * Prints "N passed, N failed"; exits 1 on any mismatch or unknown op.
 * Vector files are read with cJSON; every result comes from the C functions.
 *
 * Lone surrogates (binding_text.json). A vector string may hold a lone UTF-16 surrogate
 * escape ("\ud800"), which cJSON refuses and which a C string cannot hold as UTF-8. A C
 * caller that got such text from a UTF-16 source holds its generalized UTF-8 (WTF-8) bytes,
 * ED A0 80 for U+D800: the runner rewrites each lone surrogate escape of the file text to
 * those three bytes before parsing, so every function (string, (pointer, length) and JSON
 * text arguments alike) receives them, and the library must refuse them as invalid UTF-8
 * with LK_INVALID_REQUEST (docs/decisions.md, "Lone surrogates in the C runner").
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "leasekit.h"

#define WHY_LEN 512

/* ---------- small helpers ---------- */

static const char *str_of(const cJSON *obj, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/*
 * NUL bytes. cJSON strings are NUL-terminated, so a vector string holding "\u0000"
 * would be cut short. The runner therefore rewrites the escape "\u0000" in the file
 * text to the sentinel U+10FFFF (which no vector uses) before parsing, and turns the
 * sentinel back into a real NUL byte when it hands a string to the library: through
 * the (pointer, length) `_n` functions, or as "\u0000" inside JSON text.
 */
static const char SENTINEL[] = "\xF4\x8F\xBF\xBF"; /* UTF-8 of U+10FFFF */
#define SENTINEL_LEN 4

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* The code unit of the escape "\uXXXX" at p, or -1 when p holds no such escape. */
static long escape_unit(const char *p) {
    if (p[0] != '\\' || p[1] != 'u') return -1;
    long unit = 0;
    for (int i = 2; i < 6; i++) {
        int d = hex_digit(p[i]);
        if (d < 0) return -1;
        unit = unit * 16 + d;
    }
    return unit;
}

/*
 * Rewrites the file text before cJSON reads it: "\u0000" becomes the NUL sentinel (above),
 * and each lone surrogate escape (a high one not followed by a low one, or a low one alone)
 * becomes its three generalized UTF-8 bytes. Valid surrogate pairs are kept for cJSON.
 */
static char *prepare_text(const char *text) {
    size_t n = strlen(text);
    char *out = malloc(2 * n + 1), *o = out;
    if (!out) return NULL;
    for (const char *p = text; *p;) {
        long unit = escape_unit(p);
        if (unit == 0) {
            memcpy(o, "\\uDBFF\\uDFFF", 12);
            o += 12;
            p += 6;
        } else if (unit >= 0xD800 && unit <= 0xDBFF && escape_unit(p + 6) >= 0xDC00 && escape_unit(p + 6) <= 0xDFFF) {
            memcpy(o, p, 12); /* a pair: one character, cJSON decodes it */
            o += 12;
            p += 12;
        } else if (unit >= 0xD800 && unit <= 0xDFFF) {
            *o++ = (char)(0xE0 | (unit >> 12));
            *o++ = (char)(0x80 | ((unit >> 6) & 0x3F));
            *o++ = (char)(0x80 | (unit & 0x3F));
            p += 6;
        } else if (p[0] == '\\' && p[1]) {
            *o++ = *p++;
            *o++ = *p++;
        } else {
            *o++ = *p++;
        }
    }
    *o = '\0';
    return out;
}

/* A string argument as (pointer, length) with sentinels turned back into NUL bytes. */
typedef struct {
    char *ptr;
    size_t len;
} Bytes;

static Bytes bytes_of(const cJSON *v) {
    if (!cJSON_IsString(v)) return (Bytes){NULL, 1}; /* NULL with a length: LK_INVALID_REQUEST */
    Bytes b = {malloc(strlen(v->valuestring) + 1), 0};
    if (!b.ptr) return (Bytes){NULL, 1};
    for (const char *p = v->valuestring; *p;) {
        if (strncmp(p, SENTINEL, SENTINEL_LEN) == 0) {
            b.ptr[b.len++] = '\0';
            p += SENTINEL_LEN;
        } else {
            b.ptr[b.len++] = *p++;
        }
    }
    return b;
}

static Bytes field_bytes(const cJSON *obj, const char *key) {
    return bytes_of(cJSON_GetObjectItemCaseSensitive(obj, key));
}

/* Serializes a JSON value with sentinels written back as "\u0000" (caller frees). */
static char *json_text(const cJSON *v) {
    if (!v) return NULL;
    char *printed = cJSON_PrintUnformatted(v);
    if (!printed) return NULL;
    size_t n = strlen(printed);
    char *out = malloc(2 * n + 1), *o = out; /* 4 sentinel bytes become 6 characters */
    if (out) {
        for (const char *p = printed; *p;) {
            if (strncmp(p, SENTINEL, SENTINEL_LEN) == 0) {
                memcpy(o, "\\u0000", 6);
                o += 6;
                p += SENTINEL_LEN;
            } else {
                *o++ = *p++;
            }
        }
        *o = '\0';
    }
    cJSON_free(printed);
    return out;
}

/* Serializes an optional JSON member (NULL when absent); caller frees. */
static char *member_text(const cJSON *obj, const char *key) {
    return json_text(cJSON_GetObjectItemCaseSensitive(obj, key));
}

/* Takes ownership of a library string, parses it, frees it. */
static cJSON *take_json(char *text) {
    cJSON *v = text ? cJSON_Parse(text) : NULL;
    lk_string_free(text);
    return v;
}

/* A decimal JSON value as text: strings as they are, numbers printed (caller frees). */
static char *decimal_text(const cJSON *v) {
    if (cJSON_IsString(v)) {
        size_t n = strlen(v->valuestring) + 1;
        char *copy = malloc(n);
        if (copy) memcpy(copy, v->valuestring, n);
        return copy;
    }
    if (cJSON_IsNumber(v)) {
        char *printed = cJSON_PrintUnformatted(v);
        if (!printed) return NULL;
        size_t n = strlen(printed) + 1;
        char *copy = malloc(n);
        if (copy) memcpy(copy, printed, n);
        cJSON_free(printed);
        return copy;
    }
    return NULL;
}

static bool decimal_eq(const cJSON *a, const cJSON *b) {
    char *x = decimal_text(a), *y = decimal_text(b);
    int cmp = 1;
    bool ok = x && y && lk_decimal_compare(x, y, &cmp) == LK_OK && cmp == 0;
    free(x);
    free(y);
    return ok;
}

/* {cur: "dec"} maps: same keys, amounts equal as decimals. */
static bool decimal_map_eq(const cJSON *expect, const cJSON *got) {
    if (!cJSON_IsObject(expect) || !cJSON_IsObject(got)) return false;
    if (cJSON_GetArraySize(expect) != cJSON_GetArraySize(got)) return false;
    const cJSON *e;
    cJSON_ArrayForEach(e, expect) {
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(got, e->string);
        if (!g || !decimal_eq(e, g)) return false;
    }
    return true;
}

static bool string_in(const cJSON *array, const char *s) {
    const cJSON *x;
    cJSON_ArrayForEach(x, array) {
        if (cJSON_IsString(x) && strcmp(x->valuestring, s) == 0) return true;
    }
    return false;
}

/* Two arrays of strings hold the same set. */
static bool string_set_eq(const cJSON *a, const cJSON *b) {
    if (!cJSON_IsArray(a) || !cJSON_IsArray(b)) return false;
    const cJSON *x;
    cJSON_ArrayForEach(x, a) {
        if (!cJSON_IsString(x) || !string_in(b, x->valuestring)) return false;
    }
    cJSON_ArrayForEach(x, b) {
        if (!cJSON_IsString(x) || !string_in(a, x->valuestring)) return false;
    }
    return true;
}

/* Sums a cost.budget list through the library into a {cur: "dec"} object. */
static cJSON *budget_sum(const cJSON *entries) {
    int n = cJSON_GetArraySize(entries);
    const char **list = calloc(n > 0 ? (size_t)n : 1, sizeof *list);
    if (!list) return NULL;
    int i = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, entries) {
        if (!cJSON_IsString(x)) {
            free(list);
            return NULL;
        }
        list[i++] = x->valuestring;
    }
    char *out = NULL;
    LkStatus st = lk_budget_sum(list, (size_t)n, &out);
    free(list);
    return st == LK_OK ? take_json(out) : NULL;
}

/* Leases compared as for `narrow`: same capabilities, patterns as sets, cost.budget as sums. */
static bool lease_eq(const cJSON *expect, const cJSON *got) {
    if (!cJSON_IsObject(expect) || !cJSON_IsObject(got)) return false;
    if (cJSON_GetArraySize(expect) != cJSON_GetArraySize(got)) return false;
    const cJSON *e;
    cJSON_ArrayForEach(e, expect) {
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(got, e->string);
        if (!g) return false;
        if (strcmp(e->string, "cost.budget") == 0) {
            cJSON *se = budget_sum(e), *sg = budget_sum(g);
            bool ok = se && sg && decimal_map_eq(se, sg);
            cJSON_Delete(se);
            cJSON_Delete(sg);
            if (!ok) return false;
        } else if (!string_set_eq(e, g)) {
            return false;
        }
    }
    return true;
}

/* Builds a lease from the JSON member `key` of `input`. */
static LkStatus lease_of(const cJSON *input, const char *key, LkLease **out) {
    *out = NULL;
    char *text = member_text(input, key);
    LkStatus st = lk_lease_from_json(text, out); /* NULL text: LK_INVALID_REQUEST */
    free(text);
    return st;
}

/* ---------- ops: each returns a status and, on LK_OK, a result value ---------- */

typedef LkStatus (*op_fn)(const cJSON *input, cJSON **result);
typedef bool (*cmp_fn)(const cJSON *expect, const cJSON *got);

static LkStatus op_capability_name(const cJSON *in, cJSON **result) {
    bool valid = false, reserved = false;
    Bytes name = field_bytes(in, "name");
    LkStatus st = lk_is_valid_capability_name_n(name.ptr, name.len, &valid);
    if (st == LK_OK) st = lk_is_reserved_capability_name_n(name.ptr, name.len, &reserved);
    free(name.ptr);
    if (st != LK_OK) return st;
    *result = cJSON_CreateObject();
    cJSON_AddBoolToObject(*result, "valid", valid);
    cJSON_AddBoolToObject(*result, "reserved", reserved);
    return LK_OK;
}

static LkStatus op_validate_lease(const cJSON *in, cJSON **result) {
    LkLease *lease = NULL;
    LkStatus st = lease_of(in, "lease", &lease);
    lk_lease_free(lease);
    if (st == LK_OK) *result = cJSON_CreateString("ok");
    return st;
}

static LkStatus op_canonicalize(const cJSON *in, cJSON **result) {
    char *out = NULL;
    Bytes cap = field_bytes(in, "capability"), target = field_bytes(in, "target");
    LkStatus st = lk_canonicalize_target_n(cap.ptr, cap.len, target.ptr, target.len, &out);
    free(cap.ptr);
    free(target.ptr);
    if (st == LK_OK) *result = cJSON_CreateString(out);
    lk_string_free(out);
    return st;
}

static LkStatus op_match(const cJSON *in, cJSON **result) {
    bool matched = false;
    Bytes cap = field_bytes(in, "capability"), pattern = field_bytes(in, "pattern"), target = field_bytes(in, "target");
    LkStatus st = lk_match_pattern_n(cap.ptr, cap.len, pattern.ptr, pattern.len, target.ptr, target.len, &matched);
    free(cap.ptr);
    free(pattern.ptr);
    free(target.ptr);
    if (st == LK_OK) *result = cJSON_CreateBool(matched);
    return st;
}

static LkStatus op_subset(const cJSON *in, cJSON **result) {
    LkLease *child = NULL, *parent = NULL;
    LkStatus st = lease_of(in, "child", &child);
    if (st == LK_OK) st = lease_of(in, "parent", &parent);
    if (st == LK_OK) {
        /* Every other input member is an option, unknown keys included: the library refuses those. */
        cJSON *options = cJSON_CreateObject();
        const cJSON *v;
        cJSON_ArrayForEach(v, in) {
            if (strcmp(v->string, "child") != 0 && strcmp(v->string, "parent") != 0)
                cJSON_AddItemToObject(options, v->string, cJSON_Duplicate(v, true));
        }
        char *text = json_text(options);
        cJSON_Delete(options);
        bool subset = false;
        st = lk_lease_is_subset(child, parent, text, &subset);
        free(text);
        if (st == LK_OK) *result = cJSON_CreateBool(subset);
    }
    lk_lease_free(child);
    lk_lease_free(parent);
    return st;
}

static LkStatus op_budget_parse(const cJSON *in, cJSON **result) {
    char *out = NULL;
    LkStatus st = lk_budget_parse(str_of(in, "entry"), &out);
    if (st == LK_OK) *result = take_json(out);
    return st;
}

static LkStatus op_budget_sum(const cJSON *in, cJSON **result) {
    const cJSON *entries = cJSON_GetObjectItemCaseSensitive(in, "entries");
    int n = cJSON_GetArraySize(entries);
    const char **list = calloc(n > 0 ? (size_t)n : 1, sizeof *list);
    if (!list) return LK_INTERNAL_ERROR;
    int i = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, entries) list[i++] = cJSON_IsString(x) ? x->valuestring : NULL;
    char *out = NULL;
    LkStatus st = lk_budget_sum(list, (size_t)n, &out);
    free(list);
    if (st == LK_OK) *result = take_json(out);
    return st;
}

static LkStatus op_expires_at(const cJSON *in, cJSON **result) {
    LkStatus st = lk_validate_expires_at(str_of(in, "value"), str_of(in, "now"));
    if (st == LK_OK) *result = cJSON_CreateString("ok");
    return st;
}

static cJSON *error_entry(LkStatus st) {
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "error", lk_status_name(st));
    return e;
}

/* One authorize step; returns its result entry. */
static cJSON *authorize_step(LkGuard *guard, const cJSON *step) {
    const char *at = str_of(step, "at");
    if (at) {
        LkStatus st = lk_guard_set_time(guard, at);
        if (st != LK_OK) return error_entry(st);
    }
    const cJSON *v;
    if ((v = cJSON_GetObjectItemCaseSensitive(step, "authorize"))) {
        Bytes cap = bytes_of(cJSON_GetArrayItem(v, 0)), target = bytes_of(cJSON_GetArrayItem(v, 1));
        LkStatus st = lk_guard_authorize_n(guard, cap.ptr, cap.len, target.ptr, target.len, NULL);
        free(cap.ptr);
        free(target.ptr);
        return st == LK_OK ? cJSON_CreateString("ok") : error_entry(st);
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(step, "model"))) {
        Bytes model = bytes_of(v);
        LkStatus st = lk_guard_authorize_model_n(guard, model.ptr, model.len, NULL);
        free(model.ptr);
        return st == LK_OK ? cJSON_CreateString("ok") : error_entry(st);
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(step, "reserve"))) {
        const cJSON *cur = cJSON_GetArrayItem(v, 0);
        char *amount = decimal_text(cJSON_GetArrayItem(v, 1));
        LkStatus st = lk_guard_reserve(guard, cJSON_IsString(cur) ? cur->valuestring : NULL, amount, NULL);
        free(amount);
        return st == LK_OK ? cJSON_CreateString("ok") : error_entry(st);
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(step, "metric"))) {
        char *value = decimal_text(cJSON_GetObjectItemCaseSensitive(v, "value"));
        char *emitted = NULL, *remaining = NULL;
        LkStatus st = lk_guard_record_metric(guard, str_of(v, "name"), value, str_of(v, "unit"), &emitted);
        free(value);
        if (st == LK_OK) st = lk_guard_remaining(guard, &remaining);
        if (st != LK_OK) {
            lk_string_free(emitted);
            return error_entry(st);
        }
        cJSON *entry = cJSON_CreateObject();
        cJSON_AddItemToObject(entry, "remaining", take_json(remaining));
        cJSON_AddItemToObject(entry, "emitted", take_json(emitted));
        return entry;
    }
    return cJSON_CreateString("unknown step");
}

static LkStatus op_authorize(const cJSON *in, cJSON **result) {
    LkLease *lease = NULL;
    LkStatus st = lease_of(in, "lease", &lease);
    if (st != LK_OK) return st;
    char *constraints = member_text(in, "constraints");
    char *options = member_text(in, "options");
    LkGuard *guard = NULL;
    st = lk_guard_new_manual_clock(lease, constraints, options, NULL, &guard);
    free(constraints);
    free(options);
    lk_lease_free(lease);
    if (st != LK_OK) return st;
    *result = cJSON_CreateArray();
    const cJSON *step;
    cJSON_ArrayForEach(step, cJSON_GetObjectItemCaseSensitive(in, "steps")) {
        cJSON_AddItemToArray(*result, authorize_step(guard, step));
    }
    lk_guard_free(guard);
    return LK_OK;
}

static LkStatus op_narrow(const cJSON *in, cJSON **result) {
    LkLease *requested = NULL, *ceiling = NULL, *narrowed = NULL;
    LkStatus st = lease_of(in, "requested", &requested);
    if (st == LK_OK) st = lease_of(in, "ceiling", &ceiling);
    if (st == LK_OK) st = lk_narrow_lease(requested, ceiling, &narrowed, NULL);
    char *text = NULL;
    if (st == LK_OK) st = lk_lease_to_json(narrowed, &text);
    if (st == LK_OK) *result = take_json(text);
    lk_lease_free(requested);
    lk_lease_free(ceiling);
    lk_lease_free(narrowed);
    return st;
}

/* {"ok", "errors": distinct codes of error diagnostics, "lease"} from lk_agentfile_check. */
static LkStatus op_agentfile(const cJSON *in, cJSON **result) {
    const cJSON *compat = cJSON_GetObjectItemCaseSensitive(in, "compat");
    char *text = NULL;
    LkStatus st = lk_agentfile_check(str_of(in, "text"), cJSON_IsTrue(compat), &text);
    if (st != LK_OK) return st;
    cJSON *report = take_json(text);
    *result = cJSON_CreateObject();
    cJSON_AddItemToObject(*result, "ok", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(report, "ok"), true));
    cJSON *errors = cJSON_AddArrayToObject(*result, "errors");
    const cJSON *d;
    cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(report, "diagnostics")) {
        const char *severity = str_of(d, "severity"), *code = str_of(d, "code");
        if (severity && code && strcmp(severity, "error") == 0 && !string_in(errors, code))
            cJSON_AddItemToArray(errors, cJSON_CreateString(code));
    }
    cJSON_AddItemToObject(*result, "lease", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(report, "lease"), true));
    cJSON_Delete(report);
    return LK_OK;
}

/* ---------- comparators ---------- */

static bool cmp_exact(const cJSON *expect, const cJSON *got) { return cJSON_Compare(expect, got, true); }

static bool cmp_budget_parse(const cJSON *expect, const cJSON *got) {
    const char *ce = str_of(expect, "currency"), *cg = str_of(got, "currency");
    return cJSON_GetArraySize(expect) == 2 && ce && cg && strcmp(ce, cg) == 0 &&
           decimal_eq(cJSON_GetObjectItemCaseSensitive(expect, "amount"),
                      cJSON_GetObjectItemCaseSensitive(got, "amount"));
}

static bool metrics_eq(const cJSON *expect, const cJSON *got) {
    if (!cJSON_IsArray(expect) || !cJSON_IsArray(got)) return false;
    if (cJSON_GetArraySize(expect) != cJSON_GetArraySize(got)) return false;
    /* Walk both lists together: indexing a cJSON array is linear in the index. */
    for (const cJSON *e = expect->child, *g = got->child; e && g; e = e->next, g = g->next) {
        const char *ne = str_of(e, "name"), *ng = str_of(g, "name");
        const char *ue = str_of(e, "unit"), *ug = str_of(g, "unit");
        if (!ne || !ng || strcmp(ne, ng) != 0 || !ue || !ug || strcmp(ue, ug) != 0) return false;
        if (!decimal_eq(cJSON_GetObjectItemCaseSensitive(e, "value"), cJSON_GetObjectItemCaseSensitive(g, "value")))
            return false;
    }
    return true;
}

static bool cmp_authorize(const cJSON *expect, const cJSON *got) {
    if (!cJSON_IsArray(expect) || cJSON_GetArraySize(expect) != cJSON_GetArraySize(got)) return false;
    /* Walk both lists together: indexing a cJSON array is linear in the index. */
    for (const cJSON *e = expect->child, *g = got->child; e && g; e = e->next, g = g->next) {
        if (cJSON_IsObject(e) && cJSON_GetObjectItemCaseSensitive(e, "remaining")) {
            if (!cJSON_IsObject(g) ||
                !decimal_map_eq(cJSON_GetObjectItemCaseSensitive(e, "remaining"),
                                cJSON_GetObjectItemCaseSensitive(g, "remaining")) ||
                !metrics_eq(cJSON_GetObjectItemCaseSensitive(e, "emitted"),
                            cJSON_GetObjectItemCaseSensitive(g, "emitted")))
                return false;
        } else if (!cJSON_Compare(e, g, true)) {
            return false;
        }
    }
    return true;
}

static bool cmp_agentfile(const cJSON *expect, const cJSON *got) {
    if (!cJSON_IsObject(expect)) return false;
    const cJSON *e;
    cJSON_ArrayForEach(e, expect) {
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(got, e->string);
        if (!g) return false;
        if (strcmp(e->string, "ok") == 0) {
            if (!cJSON_Compare(e, g, true)) return false;
        } else if (strcmp(e->string, "errors") == 0) {
            if (!string_set_eq(e, g)) return false;
        } else if (strcmp(e->string, "lease") == 0) {
            if (!lease_eq(e, g)) return false;
        } else {
            return false; /* a key the format does not define */
        }
    }
    return true;
}

#include "governor_ops.c"

static const struct {
    const char *name;
    op_fn run;
    cmp_fn cmp;
} OPS[] = {
    {"capability_name", op_capability_name, cmp_exact},
    {"validate_lease", op_validate_lease, cmp_exact},
    {"canonicalize", op_canonicalize, cmp_exact},
    {"match", op_match, cmp_exact},
    {"subset", op_subset, cmp_exact},
    {"budget_parse", op_budget_parse, cmp_budget_parse},
    {"budget_sum", op_budget_sum, decimal_map_eq},
    {"expires_at", op_expires_at, cmp_exact},
    {"authorize", op_authorize, cmp_authorize},
    {"narrow", op_narrow, lease_eq},
    {"agentfile", op_agentfile, cmp_agentfile},
    {"governor", op_governor, cmp_governor},
    {"frame_decode", op_frame_decode, cmp_exact},
};

/* ---------- driver ---------- */

/* True when the vector's input holds a lone surrogate (its ED A0..BF xx bytes, see above). */
static bool has_lone_surrogate(const cJSON *input) {
    char *text = cJSON_PrintUnformatted(input);
    bool found = false;
    for (const unsigned char *p = (const unsigned char *)text; p && p[0] && !found; p++)
        found = p[0] == 0xED && p[1] >= 0xA0 && p[1] <= 0xBF;
    cJSON_free(text);
    return found;
}

/* A refusal of such input must be the UTF-8 check, not some later rule. */
static bool refused_as_text(char *why) {
    char *err = lk_last_error_json();
    bool ok = err && strstr(err, "not valid UTF-8");
    if (!ok) snprintf(why, WHY_LEN, "lone surrogate refused by another rule: %s", err ? err : "?");
    lk_string_free(err);
    return ok;
}

/* The last-error JSON must agree with the returned status. */
static bool last_error_agrees(LkStatus st, char *why) {
    cJSON *err = take_json(lk_last_error_json());
    const char *code = str_of(err, "code");
    const cJSON *retryable = cJSON_GetObjectItemCaseSensitive(err, "retryable");
    bool ok = code && strcmp(code, lk_status_name(st)) == 0 && cJSON_IsBool(retryable) &&
              (cJSON_IsTrue(retryable) == lk_status_retryable(st)) &&
              cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(err, "details"));
    if (!ok) snprintf(why, WHY_LEN, "lk_last_error_json() disagrees with status %s", lk_status_name(st));
    cJSON_Delete(err);
    return ok;
}

static bool run_vector(const cJSON *vector, char *why) {
    const char *op = str_of(vector, "op");
    const cJSON *input = cJSON_GetObjectItemCaseSensitive(vector, "input");
    const cJSON *expect = cJSON_GetObjectItemCaseSensitive(vector, "expect");
    size_t i;
    for (i = 0; i < sizeof OPS / sizeof OPS[0]; i++) {
        if (op && strcmp(op, OPS[i].name) == 0) break;
    }
    if (i == sizeof OPS / sizeof OPS[0]) {
        snprintf(why, WHY_LEN, "unknown op %s", op ? op : "(missing)");
        return false;
    }
    if (!expect) {
        snprintf(why, WHY_LEN, "vector has no expect");
        return false;
    }
    cJSON *result = NULL;
    LkStatus st = OPS[i].run(input, &result);
    const char *expected_error =
        cJSON_IsObject(expect) && cJSON_GetArraySize(expect) == 1 ? str_of(expect, "error") : NULL;
    bool ok;
    if (st != LK_OK) {
        ok = expected_error && strcmp(expected_error, lk_status_name(st)) == 0;
        if (!ok) {
            char *err = lk_last_error_json();
            snprintf(why, WHY_LEN, "got error %s", err ? err : lk_status_name(st));
            lk_string_free(err);
        } else {
            ok = last_error_agrees(st, why) && (!has_lone_surrogate(input) || refused_as_text(why));
        }
    } else if (expected_error) {
        char *text = cJSON_PrintUnformatted(result);
        snprintf(why, WHY_LEN, "expected error %s, got %s", expected_error, text ? text : "?");
        cJSON_free(text);
        ok = false;
    } else {
        ok = result && OPS[i].cmp(expect, result);
        if (!ok) {
            char *text = cJSON_PrintUnformatted(result);
            snprintf(why, WHY_LEN, "got %s", text ? text : "(no result)");
            cJSON_free(text);
        }
    }
    cJSON_Delete(result);
    return ok;
}

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len - 1 == 0) {
            char *bigger = realloc(buf, cap * 2);
            if (!bigger) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf) buf[len] = '\0';
    return buf;
}

static int is_json(const struct dirent *e) {
    size_t n = strlen(e->d_name);
    return n > 5 && strcmp(e->d_name + n - 5, ".json") == 0;
}

int main(void) {
    const char *dir = getenv("LEASEKIT_VECTORS");
    if (!dir || !*dir) dir = "conformance/vectors";
    struct dirent **files = NULL;
    int nfiles = scandir(dir, &files, is_json, alphasort);
    if (nfiles < 0) {
        fprintf(stderr, "cannot read vector directory %s\n", dir);
        printf("0 passed, 1 failed\n");
        return 1;
    }
    long passed = 0, failed = 0, skipped = 0;
    char why[WHY_LEN];
    /* LEASEKIT_MAX_STEPS=N skips governor vectors of more than N steps (test-c.sh sets it under
     * valgrind, where the 10 001-step audit vector alone would take many minutes; the ASan run
     * and every other language run them all). Skipped vectors are counted and named. */
    const char *max_env = getenv("LEASEKIT_MAX_STEPS");
    long max_steps = max_env && *max_env ? strtol(max_env, NULL, 10) : 0;
    for (int f = 0; f < nfiles; f++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, files[f]->d_name);
        char *raw = read_file(path);
        char *text = raw ? prepare_text(raw) : NULL;
        cJSON *doc = text ? cJSON_Parse(text) : NULL;
        free(raw);
        free(text);
        const cJSON *vectors = cJSON_GetObjectItemCaseSensitive(doc, "vectors");
        if (!cJSON_IsArray(vectors)) {
            fprintf(stderr, "FAIL %s: not a {\"vectors\": [...]} file\n", path);
            failed++;
        }
        const cJSON *v;
        cJSON_ArrayForEach(v, vectors) {
            why[0] = '\0';
            const cJSON *steps = cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(v, "input"), "steps");
            if (max_steps > 0 && cJSON_IsArray(steps) && cJSON_GetArraySize(steps) > max_steps) {
                const char *id = str_of(v, "id");
                fprintf(stderr, "SKIP %s %s: %d steps (LEASEKIT_MAX_STEPS=%ld)\n", files[f]->d_name,
                        id ? id : "(no id)", cJSON_GetArraySize(steps), max_steps);
                skipped++;
                continue;
            }
            if (run_vector(v, why)) {
                passed++;
            } else {
                const char *id = str_of(v, "id");
                fprintf(stderr, "FAIL %s %s: %s\n", files[f]->d_name, id ? id : "(no id)", why);
                failed++;
            }
        }
        cJSON_Delete(doc);
        free(files[f]);
    }
    free(files);
    if (skipped > 0) fprintf(stderr, "%ld vectors skipped (over %ld steps)\n", skipped, max_steps);
    printf("%ld passed, %ld failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}

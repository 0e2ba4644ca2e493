/*
 * Conformance ops `governor` and `frame_decode` of the C runner (docs/governor.md,
 * conformance/README.md). Included by conformance.c after its helpers; every result comes
 * from lk_governor_* and lk_frame_decode.
 */

/* Opens the vector's governor on `store` with its manual clock at `time`, deterministic ids. */
static LkStatus governor_open_at(const cJSON *in, const char *store, const char *time, LkGovernor **out) {
    const cJSON *given = cJSON_GetObjectItemCaseSensitive(in, "options");
    cJSON *options = given ? cJSON_Duplicate(given, true) : cJSON_CreateObject();
    if (!cJSON_IsObject(options)) {
        cJSON_Delete(options);
        options = NULL;
    }
    char *options_text = NULL;
    if (options) {
        cJSON_AddStringToObject(options, "manualClock", time);
        cJSON_AddStringToObject(options, "ids", "deterministic");
        options_text = json_text(options);
        cJSON_Delete(options);
    }
    char *policy = member_text(in, "policy");
    /* Options that are not an object go to the library as they are, to be refused there. */
    char *raw_options = options_text ? NULL : member_text(in, "options");
    LkStatus st = lk_governor_open(store, policy, options_text ? options_text : raw_options, out);
    free(policy);
    free(options_text);
    free(raw_options);
    return st;
}

static void remove_db(const char *path) {
    static const char *const suffixes[] = {"", "-wal", "-shm"};
    char name[4200];
    for (size_t i = 0; i < 3; i++) {
        snprintf(name, sizeof name, "%s%s", path, suffixes[i]);
        remove(name);
    }
}

/* Runs one command step through the wire dispatcher: the response payload, or
 * {"success": false, "error": ...} for a failed command. */
static cJSON *governor_command(LkGovernor *gov, const cJSON *step, LkStatus *st) {
    const cJSON *payload = cJSON_GetObjectItemCaseSensitive(step, "payload");
    char *text = NULL;
    if (cJSON_IsString(payload)) {
        Bytes b = bytes_of(payload); /* a string payload is sent as it is */
        text = b.ptr;
        if (text) text[b.len] = '\0';
    } else if (payload) {
        text = json_text(payload);
    }
    char *answer = NULL;
    *st = lk_governor_handle(gov, str_of(step, "command"), text ? text : "{}", &answer);
    free(text);
    if (*st != LK_OK) return NULL;
    cJSON *envelope = take_json(answer);
    cJSON *result;
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(envelope, "success"))) {
        result = cJSON_Parse(str_of(envelope, "payloadJson") ? str_of(envelope, "payloadJson") : "");
        if (!result) result = cJSON_CreateString("(payloadJson is not JSON)");
    } else {
        result = cJSON_CreateObject();
        cJSON_AddFalseToObject(result, "success");
        cJSON_AddStringToObject(result, "error", str_of(envelope, "error") ? str_of(envelope, "error") : "");
    }
    cJSON_Delete(envelope);
    return result;
}

static LkStatus op_governor(const cJSON *in, cJSON **result) {
    static unsigned long counter = 0;
    const char *store_kind = str_of(in, "store");
    bool sqlite = store_kind && strcmp(store_kind, "sqlite") == 0;
    if (store_kind && !sqlite && strcmp(store_kind, "memory") != 0) return LK_OK; /* no result: fails */
    char path[4096];
    const char *tmp = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/leasekit-c-gov-%ld-%lu.db", tmp && *tmp ? tmp : "/tmp", (long)getpid(),
             counter++);
    const char *store = sqlite ? path : "memory";
    /* A run killed half-way, or an earlier process with the same pid, may have left files. */
    if (sqlite) remove_db(path);
    LkGovernor *gov = NULL;
    const char *start = str_of(in, "start");
    LkStatus st = governor_open_at(in, store, start ? start : "", &gov);
    if (st != LK_OK) return st;
    *result = cJSON_CreateArray();
    const cJSON *step;
    cJSON_ArrayForEach(step, cJSON_GetObjectItemCaseSensitive(in, "steps")) {
        const char *at = str_of(step, "at");
        if (at && at[0] == '+') {
            st = lk_governor_advance_ms(gov, strtoull(at + 1, NULL, 10));
        } else if (at) {
            st = lk_governor_set_time(gov, at);
        }
        if (st != LK_OK) break;
        if (cJSON_GetObjectItemCaseSensitive(step, "restart")) {
            char *now = NULL;
            if (!sqlite) {
                cJSON_AddItemToArray(*result, cJSON_CreateString("(restart needs store sqlite)"));
                continue;
            }
            st = lk_governor_time(gov, &now);
            if (st != LK_OK) break;
            lk_governor_free(gov);
            gov = NULL;
            st = governor_open_at(in, store, now, &gov);
            lk_string_free(now);
            if (st != LK_OK) break;
            cJSON_AddItemToArray(*result, cJSON_CreateString("ok"));
        } else if (cJSON_GetObjectItemCaseSensitive(step, "verify_audit")) {
            char *out = NULL;
            st = lk_governor_verify_audit(gov, NULL, &out);
            if (st != LK_OK) break;
            cJSON_AddItemToArray(*result, take_json(out));
        } else {
            cJSON *r = governor_command(gov, step, &st);
            if (st != LK_OK) break;
            cJSON_AddItemToArray(*result, r);
        }
    }
    lk_governor_free(gov);
    if (sqlite) remove_db(path);
    if (st != LK_OK) {
        cJSON_Delete(*result);
        *result = NULL;
    }
    return st;
}

/* hex_digit: conformance.c (this file is included by it). */
static LkStatus op_frame_decode(const cJSON *in, cJSON **result) {
    const char *hex = str_of(in, "hex");
    if (!hex) return LK_OK; /* no result: the vector fails */
    size_t n = strlen(hex);
    if (n % 2) return LK_OK;
    uint8_t *bytes = malloc(n / 2 + 1);
    if (!bytes) return LK_OK;
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            free(bytes);
            return LK_OK;
        }
        bytes[i] = (uint8_t)(hi * 16 + lo);
    }
    char *out = NULL;
    LkStatus st = lk_frame_decode(bytes, n / 2, &out);
    free(bytes);
    if (st != LK_OK) return st;
    cJSON *envelope = take_json(out);
    *result = cJSON_CreateObject();
    const char *command = str_of(envelope, "command");
    cJSON_AddStringToObject(*result, "command", command ? command : "");
    cJSON_Delete(envelope);
    return LK_OK;
}

/* Pattern lists of an effectiveLease compare as sets. */
static bool lease_sets_eq(const cJSON *expect, const cJSON *got) {
    if (!cJSON_IsObject(expect) || !cJSON_IsObject(got)) return cJSON_Compare(expect, got, true);
    if (cJSON_GetArraySize(expect) != cJSON_GetArraySize(got)) return false;
    const cJSON *e;
    cJSON_ArrayForEach(e, expect) {
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(got, e->string);
        if (!g || !string_set_eq(e, g)) return false;
    }
    return true;
}

/* Keys present in `expect` only, recursively; lists whole; numbers as numbers; strings
 * equal or equal as decimals. */
static bool partial_eq(const cJSON *expect, const cJSON *got) {
    if (cJSON_IsObject(expect) && cJSON_IsObject(got)) {
        const cJSON *e;
        cJSON_ArrayForEach(e, expect) {
            const cJSON *g = cJSON_GetObjectItemCaseSensitive(got, e->string);
            if (!g) return false;
            bool same = strcmp(e->string, "effectiveLease") == 0 ? lease_sets_eq(e, g) : partial_eq(e, g);
            if (!same) return false;
        }
        return true;
    }
    if (cJSON_IsArray(expect) && cJSON_IsArray(got)) {
        if (cJSON_GetArraySize(expect) != cJSON_GetArraySize(got)) return false;
        for (const cJSON *e = expect->child, *g = got->child; e && g; e = e->next, g = g->next) {
            if (!partial_eq(e, g)) return false;
        }
        return true;
    }
    if (cJSON_IsNumber(expect) && cJSON_IsNumber(got)) return expect->valuedouble == got->valuedouble;
    if (cJSON_IsString(expect) && cJSON_IsString(got)) {
        return strcmp(expect->valuestring, got->valuestring) == 0 || decimal_eq(expect, got);
    }
    return cJSON_Compare(expect, got, true);
}

/* One expect entry per step; an entry with "success": false matches a failed command and
 * only that. */
static bool cmp_governor(const cJSON *expect, const cJSON *got) {
    if (!cJSON_IsArray(expect) || !cJSON_IsArray(got)) return false;
    if (cJSON_GetArraySize(expect) != cJSON_GetArraySize(got)) return false;
    /* Walk both lists together: indexing a cJSON array is linear in the index. */
    for (const cJSON *e = expect->child, *g = got->child; e && g; e = e->next, g = g->next) {
        bool failed = cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(g, "success"));
        bool wants_failure = cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(e, "success"));
        if (failed != wants_failure) return false;
        if (!partial_eq(e, g)) return false;
    }
    return true;
}

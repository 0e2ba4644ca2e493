/* C harness: the same operations through the leasekit C ABI (release libleasekit_ffi), to set
 * against the Rust core harness (the FFI cost), plus the adversarial series.
 *
 * Usage: bench INPUTS_JSON OUT_JSON. Writes {"lang": "c", "records": [...]}.
 * Reads the inputs with cJSON (libcjson-dev, installed by ffi/build-c.sh). */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <leasekit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SAMPLES 11
#define BATCH_NS 10000000.0

typedef void (*op_fn)(void *ctx);

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double run_batch(op_fn f, void *ctx, long iters) {
  double t = now_ns();
  for (long i = 0; i < iters; i++) f(ctx);
  return now_ns() - t;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median ns per call: a batch calibrated to ~10 ms, SAMPLES batches. */
static double median_ns(op_fn f, void *ctx, long *iters_out) {
  long iters = 1;
  for (;;) {
    double el = run_batch(f, ctx, iters);
    if (el >= BATCH_NS / 4) {
      double again = run_batch(f, ctx, iters);
      if (again < el) el = again;
      if (el < BATCH_NS) iters = (long)(iters * BATCH_NS / el);
      if (iters < 1) iters = 1;
      break;
    }
    iters *= 4;
  }
  double per[SAMPLES];
  for (int s = 0; s < SAMPLES; s++) per[s] = run_batch(f, ctx, iters) / (double)iters;
  qsort(per, SAMPLES, sizeof per[0], cmp_double);
  *iters_out = iters;
  return per[SAMPLES / 2];
}

static long peak_rss_kb(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kb = 0;
  if (!f) return 0;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "VmHWM:", 6) == 0) kb = strtol(line + 6, NULL, 10);
  fclose(f);
  return kb;
}

static void reset_peak_rss(void) {
  FILE *f = fopen("/proc/self/clear_refs", "w");
  if (f) {
    fputs("5", f);
    fclose(f);
  }
}

static void die(const char *what) {
  char *err = lk_last_error_json();
  fprintf(stderr, "bench-c: %s failed: %s\n", what, err ? err : "?");
  exit(1);
}

/* ---- the timed operations ---- */
struct auth_ctx { LkGuard *guard; const char *cap, *target; int allowed; };
static void op_authorize(void *p) {
  struct auth_ctx *c = p;
  char *out = NULL;
  c->allowed = lk_guard_authorize(c->guard, c->cap, c->target, &out) == LK_OK;
  lk_string_free(out);
}

struct subset_ctx { LkLease *child, *parent; bool result; };
static void op_subset(void *p) {
  struct subset_ctx *c = p;
  if (lk_lease_is_subset(c->child, c->parent, NULL, &c->result) != LK_OK) die("lk_lease_is_subset");
}

struct str_ctx { const char *a, *b, *c; const char *d; LkGuard *guard; };
static void op_budget_parse(void *p) {
  struct str_ctx *c = p;
  char *out = NULL;
  if (lk_budget_parse(c->a, &out) != LK_OK) die("lk_budget_parse");
  lk_string_free(out);
}
static void op_budget_spend(void *p) {
  struct str_ctx *c = p;
  char *out = NULL;
  if (lk_guard_record_metric(c->guard, c->a, c->b, c->c, &out) != LK_OK) die("lk_guard_record_metric");
  lk_string_free(out);
}

static LkLease *lease_of(const char *cap, cJSON *patterns) {
  cJSON *obj = cJSON_CreateObject();
  cJSON_AddItemReferenceToObject(obj, cap, patterns);
  char *json = cJSON_PrintUnformatted(obj);
  LkLease *lease = NULL;
  if (lk_lease_from_json(json, &lease) != LK_OK) die("lk_lease_from_json");
  free(json);
  cJSON_Delete(obj);
  return lease;
}

static LkLease *lease_json(cJSON *value) {
  char *json = cJSON_PrintUnformatted(value);
  LkLease *lease = NULL;
  if (lk_lease_from_json(json, &lease) != LK_OK) die("lk_lease_from_json");
  free(json);
  return lease;
}

static LkGuard *guard_of(LkLease *lease) {
  LkGuard *g = NULL;
  if (lk_guard_new(lease, NULL, NULL, &g) != LK_OK) die("lk_guard_new");
  return g;
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) { perror(path); exit(1); }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (fread(buf, 1, (size_t)n, f) != (size_t)n) { perror(path); exit(1); }
  buf[n] = 0;
  fclose(f);
  return buf;
}

static cJSON *records;

static void add_time(const char *op, op_fn f, void *ctx) {
  long iters = 0;
  double ns = median_ns(f, ctx, &iters);
  cJSON *r = cJSON_CreateObject();
  cJSON_AddStringToObject(r, "kind", "time");
  cJSON_AddStringToObject(r, "impl", "leasekit");
  cJSON_AddStringToObject(r, "op", op);
  cJSON_AddNumberToObject(r, "median_ns", ns);
  cJSON_AddNumberToObject(r, "iters", (double)iters);
  cJSON_AddNumberToObject(r, "samples", SAMPLES);
  cJSON_AddItemToArray(records, r);
}

int main(int argc, char **argv) {
  if (argc != 3) { fprintf(stderr, "usage: bench INPUTS_JSON OUT_JSON\n"); return 2; }
  char *text = slurp(argv[1]);
  cJSON *in = cJSON_Parse(text);
  if (!in) { fprintf(stderr, "bench-c: bad inputs\n"); return 1; }
  records = cJSON_CreateArray();
  const char *cap = cJSON_GetObjectItem(in, "capability")->valuestring;

  cJSON *n;
  cJSON_ArrayForEach(n, cJSON_GetObjectItem(in, "sizes")) {
    char key[32], op[48];
    snprintf(key, sizeof key, "%d", n->valueint);
    LkLease *lease = lease_of(cap, cJSON_GetObjectItem(cJSON_GetObjectItem(in, "leases"), key));
    LkGuard *g = guard_of(lease);
    struct auth_ctx c = {g, cap, cJSON_GetObjectItem(cJSON_GetObjectItem(in, "targets"), key)->valuestring, 0};
    op_authorize(&c);
    if (!c.allowed) die("authorize of the allowed target");
    struct auth_ctx d = {g, cap, cJSON_GetObjectItem(cJSON_GetObjectItem(in, "denied"), key)->valuestring, 0};
    op_authorize(&d);
    if (d.allowed) { fprintf(stderr, "bench-c: denied target allowed\n"); return 1; }
    snprintf(op, sizeof op, "authorize/%s", key);
    add_time(op, op_authorize, &c);
    lk_guard_free(g);
    lk_lease_free(lease);
  }

  cJSON *sub = cJSON_GetObjectItem(in, "subset");
  struct subset_ctx s = {lease_json(cJSON_GetObjectItem(sub, "child")), lease_json(cJSON_GetObjectItem(sub, "parent")), false};
  op_subset(&s);
  if (s.result != cJSON_IsTrue(cJSON_GetObjectItem(sub, "expect"))) { fprintf(stderr, "bench-c: subset answer\n"); return 1; }
  add_time("subset", op_subset, &s);
  lk_lease_free(s.child);
  lk_lease_free(s.parent);

  cJSON *b = cJSON_GetObjectItem(in, "budget");
  struct str_ctx bp = {cJSON_GetObjectItem(b, "entry")->valuestring, NULL, NULL, NULL, NULL};
  add_time("budget_parse", op_budget_parse, &bp);
  cJSON *budget_list = cJSON_CreateArray();
  cJSON_AddItemToArray(budget_list, cJSON_CreateString(cJSON_GetObjectItem(b, "lease_budget")->valuestring));
  LkLease *bl = lease_of("cost.budget", budget_list);
  cJSON *m = cJSON_GetObjectItem(b, "metric");
  struct str_ctx sp = {cJSON_GetArrayItem(m, 0)->valuestring, cJSON_GetArrayItem(m, 1)->valuestring,
                       cJSON_GetArrayItem(m, 2)->valuestring, NULL, guard_of(bl)};
  add_time("budget_spend", op_budget_spend, &sp);
  lk_guard_free(sp.guard);
  lk_lease_free(bl);
  cJSON_Delete(budget_list);

  /* Adversarial series, in-process (the core is linear). */
  cJSON *adv = cJSON_GetObjectItem(in, "adversarial");
  const char *acap = cJSON_GetObjectItem(adv, "capability")->valuestring;
  cJSON *pats = cJSON_CreateArray();
  cJSON_AddItemToArray(pats, cJSON_CreateString(cJSON_GetObjectItem(adv, "pattern")->valuestring));
  LkLease *al = lease_of(acap, pats);
  LkGuard *ag = guard_of(al);
  cJSON_ArrayForEach(n, cJSON_GetObjectItem(adv, "sizes")) {
    size_t len = (size_t)n->valueint;
    char *target = malloc(len + 1);
    memset(target, 'a', len);
    target[len] = 0;
    reset_peak_rss();
    struct auth_ctx c = {ag, acap, target, 0};
    long iters;
    double ns = median_ns(op_authorize, &c, &iters);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "kind", "adv");
    cJSON_AddStringToObject(r, "impl", "leasekit");
    cJSON_AddStringToObject(r, "series", "star-a");
    cJSON_AddNumberToObject(r, "n", (double)len);
    cJSON_AddNumberToObject(r, "ns", ns);
    cJSON_AddBoolToObject(r, "answer", c.allowed);
    cJSON_AddBoolToObject(r, "timed_out", 0);
    cJSON_AddNumberToObject(r, "peak_rss_kb", (double)peak_rss_kb());
    cJSON_AddItemToArray(records, r);
    free(target);
  }
  lk_guard_free(ag);
  lk_lease_free(al);
  cJSON_Delete(pats);

  cJSON *out = cJSON_CreateObject();
  cJSON_AddStringToObject(out, "lang", "c");
  cJSON_AddItemToObject(out, "records", records);
  char *json = cJSON_Print(out);
  FILE *f = fopen(argv[2], "w");
  if (!f) { perror(argv[2]); return 1; }
  fputs(json, f);
  fclose(f);
  free(json);
  cJSON_Delete(out);
  cJSON_Delete(in);
  free(text);
  return 0;
}

/* config: the settings file and its environment overrides.
 *
 * One table (keys[]) lists every key of the file with its type, range,
 * field and overriding variable; parsing, the overrides, `config show`
 * and the unknown-key suggestions all walk it, so they cannot disagree.
 * A parse works on a copy and hands it over only when the whole document
 * is valid. */
#include "bp_setup.h"
#include "config.h"
#include "bencher.h"
#include "counters.h"  /* BP_COUNTERS_DEFAULT */
#include "err.h"
#include "fileio.h"
#include "http.h"
#include "record.h"    /* BP_RECORD_MAX_STACK_BYTES, bp_record_opts */
#include "store.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

/* A config file is small; anything bigger is a mistake. */
#define MAX_FILE_BYTES (1024 * 1024)

enum kind {
  K_OBJ,        /* an object of further keys */
  K_BOOL,
  K_STR,        /* a non-empty string */
  K_STORE_URL,  /* file://, s3://, http:// or https:// */
  K_HTTP_URL,   /* http:// or https:// */
  K_ENVNAME,    /* the name of an environment variable */
  K_SECRET,     /* a non-empty string never shown */
  K_U64,        /* a whole number in [min, max]; 0 when unset */
  K_UINT,       /* the same, stored as unsigned */
  K_MS,         /* seconds in the file, milliseconds in the struct */
  K_NUMBER,     /* any number in [min, max], stored as double */
  K_CALL_GRAPH, /* fp | dwarf[,BYTES] | auto */
  K_COUNTERS,   /* a list of event names, or false */
};

struct key {
  const char *path;   /* "record.frequency" */
  enum kind kind;
  size_t off;         /* of the field in struct bp_config */
  double min, max;
  const char *env;    /* the variable that overrides it, or NULL */
};

#define F(member) offsetof(struct bp_config, member)
#define OBJ(p) {p, K_OBJ, 0, 0, 0, NULL}

/* Objects come before their keys, so the order is the file's layout. */
static const struct key keys[] = {
  {"enabled", K_BOOL, F(enabled), 0, 0, "BENCHPROF_ENABLED"},
  {"strict", K_BOOL, F(strict), 0, 0, "BENCHPROF_STRICT"},
  {"output", K_STR, F(output), 0, 0, "BENCHPROF_OUTPUT"},
  {"spool", K_STR, F(spool), 0, 0, "BENCHPROF_SPOOL"},
  {"firefox_upload", K_BOOL, F(firefox_upload), 0, 0,
   "BENCHPROF_FIREFOX_UPLOAD"},
  OBJ("record"),
  {"record.event", K_STR, F(record.event), 0, 0, "BENCHPROF_EVENT"},
  {"record.frequency", K_U64, F(record.frequency), 1, 1000000,
   "BENCHPROF_FREQUENCY"},
  {"record.period", K_U64, F(record.period), 1, 4611686018427387904.0,
   "BENCHPROF_PERIOD"},
  {"record.call_graph", K_CALL_GRAPH, F(record.call_graph), 0, 0,
   "BENCHPROF_CALL_GRAPH"},
  {"record.counters", K_COUNTERS, F(record.counters), 0, 0,
   "BENCHPROF_COUNTERS"},
  {"record.kernel", K_BOOL, F(record.kernel), 0, 0, "BENCHPROF_KERNEL"},
  {"record.ring_mib", K_U64, F(record.ring_mib), 1, 1024,
   "BENCHPROF_RING_MIB"},
  {"record.repeat", K_U64, F(record.repeat), 1, 1000, "BENCHPROF_REPEAT"},
  OBJ("symbols"),
  {"symbols.debuginfod", K_STR, F(symbols.debuginfod), 0, 0,
   "BENCHPROF_DEBUGINFOD"},
  {"symbols.debuginfod_timeout", K_MS, F(symbols.debuginfod_timeout_ms),
   0.001, 3600, NULL},
  {"symbols.debuginfod_cache", K_STR, F(symbols.debuginfod_cache), 0, 0,
   NULL},
  OBJ("store"),
  {"store.url", K_STORE_URL, F(store.url), 0, 0, "BENCHPROF_STORE"},
  {"store.public_url", K_HTTP_URL, F(store.public_url), 0, 0,
   "BENCHPROF_PUBLIC_URL"},
  {"store.token_env", K_ENVNAME, F(store.token_env), 0, 0, NULL},
  OBJ("store.s3"),
  {"store.s3.endpoint", K_HTTP_URL, F(store.s3.endpoint), 0, 0,
   "BENCHPROF_S3_ENDPOINT"},
  {"store.s3.region", K_STR, F(store.s3.region), 0, 0,
   "BENCHPROF_S3_REGION"},
  {"store.s3.path_style", K_BOOL, F(store.s3.path_style), 0, 0,
   "BENCHPROF_S3_PATH_STYLE"},
  OBJ("bencher"),
  /* BENCHER_HOST: the name issue 5 and the bencher CLI use */
  {"bencher.host", K_HTTP_URL, F(bencher.host), 0, 0, "BENCHER_HOST"},
  {"bencher.console_url", K_HTTP_URL, F(bencher.console), 0, 0,
   "BENCHPROF_BENCHER_CONSOLE"},
  {"bencher.project", K_STR, F(bencher.project), 0, 0, "BENCHPROF_PROJECT"},
  {"bencher.testbed", K_STR, F(bencher.testbed), 0, 0, "BENCHPROF_TESTBED"},
  {"bencher.token_env", K_ENVNAME, F(bencher.token_env), 0, 0, NULL},
  {"bencher.token", K_SECRET, F(bencher.token), 0, 0, NULL},
  OBJ("network"),
  {"network.connect_timeout", K_MS, F(network.connect_timeout_ms), 0.001,
   600, NULL},
  {"network.timeout", K_MS, F(network.timeout_ms), 0.001, 3600, NULL},
  {"network.retries", K_UINT, F(network.retries), 0, 20, NULL},
  {"network.max_retry_after", K_MS, F(network.max_retry_after_ms), 0.001,
   3600, NULL},
  {"network.deadline", K_MS, F(network.deadline_ms), 0.001, 86400, NULL},
  {"network.ca_file", K_STR, F(network.ca_file), 0, 0, "BENCHPROF_CA_FILE"},
  OBJ("comment"),
  {"comment.enabled", K_BOOL, F(comment.enabled), 0, 0, "BENCHPROF_COMMENT"},
  {"comment.threshold", K_NUMBER, F(comment.threshold), 0, 1000, NULL},
  {"comment.max_functions", K_UINT, F(comment.max_functions), 0, 100, NULL},
  {"comment.fail_on_regression", K_BOOL, F(comment.fail_on_regression), 0, 0,
   "BENCHPROF_FAIL_ON_REGRESSION"},
  {"comment.token_env", K_ENVNAME, F(comment.token_env), 0, 0, NULL},
  {"comment.file", K_STR, F(comment.file), 0, 0, NULL},
};

#define NKEYS BP_ARRAY_LEN(keys)
_Static_assert(BP_ARRAY_LEN(keys) <= 64, "struct bp_config.given has 64 bits");

static bool is_string_kind(enum kind k)
{
  return k == K_STR || k == K_STORE_URL || k == K_HTTP_URL ||
         k == K_ENVNAME || k == K_SECRET || k == K_CALL_GRAPH ||
         k == K_COUNTERS;
}

static char **str_field(struct bp_config *c, const struct key *k)
{
  return (char **)(void *)((char *)c + k->off);
}

static void *field(struct bp_config *c, const struct key *k)
{
  return (char *)c + k->off;
}

static const void *cfield(const struct bp_config *c, const struct key *k)
{
  return (const char *)c + k->off;
}

static unsigned key_index(const char *path)
{
  for(unsigned i = 0; i < NKEYS; i++)
    if(!strcmp(keys[i].path, path))
      return i;
  return (unsigned)NKEYS;
}

static unsigned key_of(size_t off, enum kind kind)
{
  for(unsigned i = 0; i < NKEYS; i++)
    if(keys[i].off == off && keys[i].kind == kind)
      return i;
  return (unsigned)NKEYS;
}

/* The part after the last '.'. */
static const char *leaf(const char *path)
{
  const char *dot = strrchr(path, '.');
  return dot ? dot + 1 : path;
}

/* Whether key path is directly inside the object parent ("" the root). */
static bool is_child(const char *path, const char *parent)
{
  size_t n = strlen(parent);
  if(!n)
    return !strchr(path, '.');
  return !strncmp(path, parent, n) && path[n] == '.' &&
         !strchr(path + n + 1, '.');
}

const char *bpi_config_key(unsigned i)
{
  return i < NKEYS ? keys[i].path : NULL;
}

/* ---------------------------------------------------------- lifecycle */

static bp_code set_str(char **dst, const char *s)
{
  char *copy = NULL;
  if(s) {
    copy = strdup(s);
    if(!copy)
      return BPE_NOMEM;
  }
  free(*dst);
  *dst = copy;
  return BP_OK;
}

bp_code bpi_config_init(struct bp_config *c)
{
  memset(c, 0, sizeof(*c));
  c->enabled = true;
  c->record.frequency = BP_CONFIG_DEFAULT_FREQUENCY;
  c->record.call_graph_mode = BP_CALL_GRAPH_AUTO;
  c->record.kernel = true;  /* where permitted (record.c) */
  c->symbols.debuginfod_timeout_ms = BP_DEBUGINFOD_TIMEOUT_MS;
  c->network.connect_timeout_ms = BP_CONFIG_DEFAULT_CONNECT_TIMEOUT_MS;
  c->network.timeout_ms = BP_CONFIG_DEFAULT_TIMEOUT_MS;
  c->network.retries = BP_CONFIG_DEFAULT_RETRIES;
  c->network.max_retry_after_ms = BP_CONFIG_DEFAULT_MAX_RETRY_AFTER_MS;
  c->comment.enabled = true;
  c->comment.threshold = BP_CONFIG_DEFAULT_THRESHOLD;
  c->comment.max_functions = BP_CONFIG_DEFAULT_MAX_FUNCTIONS;
  if(set_str(&c->output, BP_CONFIG_DEFAULT_OUTPUT) ||
     set_str(&c->record.event, BP_CONFIG_DEFAULT_EVENT) ||
     set_str(&c->record.call_graph, "auto") ||
     set_str(&c->record.counters, BP_COUNTERS_DEFAULT) ||
     set_str(&c->bencher.token_env, BP_CONFIG_DEFAULT_BENCHER_TOKEN_ENV))
    return BPE_NOMEM;
  return BP_OK;
}

void bpi_config_cleanup(struct bp_config *c)
{
  for(unsigned i = 0; i < NKEYS; i++)
    if(is_string_kind(keys[i].kind))
      free(*str_field(c, &keys[i]));
  free(c->file);
  memset(c, 0, sizeof(*c));
}

/* dst = a deep copy of src. */
static bp_code copy_config(struct bp_config *dst, const struct bp_config *src)
{
  *dst = *src;
  for(unsigned i = 0; i < NKEYS; i++)
    if(is_string_kind(keys[i].kind))
      *str_field(dst, &keys[i]) = NULL;
  dst->file = NULL;
  bp_code rc = set_str(&dst->file, src->file);
  for(unsigned i = 0; !rc && i < NKEYS; i++)
    if(is_string_kind(keys[i].kind))
      rc = set_str(str_field(dst, &keys[i]),
                   *(char *const *)cfield(src, &keys[i]));
  return rc;
}

/* ------------------------------------------------------------ messages */

/* Where a value came from: a file and a JSON path, or a variable. */
struct where {
  const char *origin;  /* file name or variable name */
  const char *path;    /* JSON path without "$."; NULL for a variable */
  const char *raw;     /* a variable's value as given */
};

/* s as a JSON string, escaped and shortened, into out. */
static void quoted(char *out, size_t cap, const char *s)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_buf_json_str(&b, s ? s : "");
  if(bpi_buf_failed(&b) || !b.data)
    snprintf(out, cap, "\"...\"");
  else if(b.len < cap)
    snprintf(out, cap, "%s", b.data);
  else
    snprintf(out, cap, "%.*s...\"", (int)(cap > 6 ? cap - 6 : 0), b.data);
  bpi_buf_cleanup(&b);
}

static bp_code failv(struct bp_err *err, const struct where *w,
                     const char *fmt, va_list ap)
  __attribute__((format(printf, 3, 0)));

static bp_code failv(struct bp_err *err, const struct where *w,
                     const char *fmt, va_list ap)
{
  char what[384];
  vsnprintf(what, sizeof(what), fmt, ap);
  if(w->path)
    return bpi_err_set(err, BPE_CONFIG, 0, "%s: $%s%s: %s", w->origin,
                       *w->path ? "." : "", w->path, what);
  return bpi_err_set(err, BPE_CONFIG, 0, "%s: %s", w->origin, what);
}

static bp_code fail(struct bp_err *err, const struct where *w,
                    const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));

static bp_code fail(struct bp_err *err, const struct where *w,
                    const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  bp_code rc = failv(err, w, fmt, ap);
  va_end(ap);
  return rc;
}

/* What a value is, for "got ...": a variable's text, or the JSON's type
 * (a number shown as itself). */
static void got(char *out, size_t cap, const struct where *w, const cJSON *j)
{
  if(w->raw)
    quoted(out, cap, w->raw);
  else if(cJSON_IsNumber(j)) {
    /* the shortest form that reads back: 0.1, not 0.10000000000000001 */
    for(int prec = 15; prec <= 17; prec++) {
      snprintf(out, cap, "%.*g", prec, j->valuedouble);
      if(strtod(out, NULL) == j->valuedouble)
        break;
    }
  }
  else if(cJSON_IsString(j))
    snprintf(out, cap, "a string");
  else if(cJSON_IsObject(j))
    snprintf(out, cap, "an object");
  else if(cJSON_IsArray(j))
    snprintf(out, cap, "an array");
  else if(cJSON_IsBool(j))
    snprintf(out, cap, "%s", cJSON_IsTrue(j) ? "true" : "false");
  else if(cJSON_IsNull(j))
    snprintf(out, cap, "null");
  else
    snprintf(out, cap, "an unknown value");
}

/* Levenshtein distance of two short strings; a large number for long
 * ones. */
static size_t distance(const char *a, const char *b)
{
  size_t la = strlen(a), lb = strlen(b);
  size_t row[65];
  if(la > 64 || lb > 64)
    return 1000;
  for(size_t j = 0; j <= lb; j++)
    row[j] = j;
  for(size_t i = 1; i <= la; i++) {
    size_t diag = row[0];
    row[0] = i;
    for(size_t j = 1; j <= lb; j++) {
      size_t up = row[j];
      size_t best = diag + (a[i - 1] != b[j - 1]);
      if(up + 1 < best)
        best = up + 1;
      if(row[j - 1] + 1 < best)
        best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[lb];
}

/* " did you mean ...?" for an unknown key name inside parent: the
 * nearest sibling when it is close, else the same name elsewhere. */
static void suggest(char *out, size_t cap, const char *parent,
                    const char *name)
{
  size_t len = strlen(name);
  size_t limit = len <= 4 ? 1 : len <= 8 ? 2 : 3;
  size_t best = limit + 1;
  const char *pick = NULL;
  out[0] = '\0';
  for(unsigned i = 0; i < NKEYS; i++) {
    if(!is_child(keys[i].path, parent))
      continue;
    size_t d = distance(name, leaf(keys[i].path));
    if(d < best) {
      best = d;
      pick = leaf(keys[i].path);
    }
  }
  if(pick) {
    snprintf(out, cap, "; did you mean \"%s\"?", pick);
    return;
  }
  for(unsigned i = 0; i < NKEYS; i++)
    if(!strcmp(leaf(keys[i].path), name)) {
      snprintf(out, cap, "; did you mean $.%s?", keys[i].path);
      return;
    }
}

/* -------------------------------------------------------------- values */

struct parse {
  struct bp_config *c;
  struct bp_err *err;
  uint64_t given;      /* keys this document or environment set */
};

static bool is_env_name(const char *s)
{
  if(!*s || (*s >= '0' && *s <= '9'))
    return false;
  for(; *s; s++)
    if(!(*s == '_' || (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
         (*s >= '0' && *s <= '9')))
      return false;
  return true;
}

static bool has_prefix(const char *s, const char *p)
{
  return !strncmp(s, p, strlen(p)) && s[strlen(p)];
}

static bool is_http_url(const char *s)
{
  return has_prefix(s, "http://") || has_prefix(s, "https://");
}

static bool is_store_url(const char *s)
{
  return is_http_url(s) || has_prefix(s, "file:///") || has_prefix(s, "s3://");
}

/* fp | dwarf[,BYTES] | auto | lbr into the record fields; false when not. */
static bool parse_call_graph(const char *s, enum bp_call_graph *mode,
                             uint32_t *bytes)
{
  *bytes = 0;
  if(!strcmp(s, "fp") || !strcmp(s, "auto") || !strcmp(s, "lbr")) {
    *mode = s[0] == 'f' ? BP_CALL_GRAPH_FP :
            s[0] == 'l' ? BP_CALL_GRAPH_LBR : BP_CALL_GRAPH_AUTO;
    return true;
  }
  if(strncmp(s, "dwarf", 5) || (s[5] && s[5] != ','))
    return false;
  *mode = BP_CALL_GRAPH_DWARF;
  if(!s[5])
    return true;
  const char *n = s + 6;
  if(*n < '0' || *n > '9')
    return false;
  errno = 0;
  char *end;
  unsigned long long v = strtoull(n, &end, 10);
  if(errno || *end || v < 8 || v > BP_RECORD_MAX_STACK_BYTES || (v & 7))
    return false;
  *bytes = (uint32_t)v;
  return true;
}

/* A list of event names joined with ','; NULL for false or []. */
static bp_code set_counters(struct parse *ps, const struct key *k,
                            const struct where *w, const cJSON *j)
{
  char what[96];
  struct bp_buf b;
  const cJSON *e;
  bp_code rc = BP_OK;
  if(cJSON_IsFalse(j))
    return set_str(str_field(ps->c, k), NULL) ?
      bpi_err_set(ps->err, BPE_NOMEM, 0, "config") : BP_OK;
  if(!cJSON_IsArray(j)) {
    got(what, sizeof(what), w, j);
    return fail(ps->err, w, "expected a list of event names or false, "
                "got %s", what);
  }
  bpi_buf_init(&b);
  int i = 0;
  cJSON_ArrayForEach(e, j) {
    const char *s = cJSON_IsString(e) ? e->valuestring : NULL;
    if(!s || !*s || strchr(s, ',') || strpbrk(s, " \t\n\r")) {
      if(s)
        quoted(what, sizeof(what), s);
      else
        got(what, sizeof(what), &(struct where){0}, e);
      rc = fail(ps->err, w, "item %d: expected an event name (no commas "
                "or spaces), got %s", i, what);
      goto out;
    }
    if(b.len)
      bpi_buf_addc(&b, ',');
    bpi_buf_adds(&b, s);
    i++;
  }
  if(bpi_buf_failed(&b) || set_str(str_field(ps->c, k), b.len ? b.data : NULL))
    rc = bpi_err_set(ps->err, BPE_NOMEM, 0, "config");
out:
  bpi_buf_cleanup(&b);
  return rc;
}

static bp_code set_string(struct parse *ps, const struct key *k,
                          const struct where *w, const cJSON *j)
{
  char what[96];
  static const char *const expect[] = {
    [K_STR] = "a non-empty string",
    [K_STORE_URL] = "a file:///, s3://, http:// or https:// URL",
    [K_HTTP_URL] = "an http:// or https:// URL",
    [K_ENVNAME] = "an environment variable's name ([A-Za-z_][A-Za-z0-9_]*)",
    [K_SECRET] = "a non-empty string",
    [K_CALL_GRAPH] = "fp, dwarf, dwarf,BYTES (a multiple of 8 up to 65528), "
                     "auto or lbr",
  };
  const char *s = cJSON_IsString(j) ? j->valuestring : NULL;
  bool ok = s && *s;
  enum bp_call_graph mode = BP_CALL_GRAPH_AUTO;
  uint32_t bytes = 0;
  if(ok && k->kind == K_STORE_URL)
    ok = is_store_url(s);
  else if(ok && k->kind == K_HTTP_URL)
    ok = is_http_url(s);
  else if(ok && k->kind == K_ENVNAME)
    ok = is_env_name(s);
  else if(ok && k->kind == K_CALL_GRAPH)
    ok = parse_call_graph(s, &mode, &bytes);
  bool credentials = ok && (k->kind == K_HTTP_URL || k->kind == K_STORE_URL)
    && bpi_http_url_has_credentials(s);
  if(credentials)  /* never echo them either */
    return fail(ps->err, w, "expected %s without credentials (user:password@"
                " goes into manifests and the spool; use the token "
                "variables), got a URL with credentials", expect[k->kind]);
  if(!ok) {
    /* never echo a secret */
    if(k->kind == K_SECRET)
      snprintf(what, sizeof(what), "%s", s ? "an empty string" :
               cJSON_IsNumber(j) ? "a number" : "another type");
    else if(s && !w->raw)
      quoted(what, sizeof(what), s);
    else
      got(what, sizeof(what), w, j);
    return fail(ps->err, w, "expected %s, got %s", expect[k->kind], what);
  }
  if(set_str(str_field(ps->c, k), s))
    return bpi_err_set(ps->err, BPE_NOMEM, 0, "config");
  if(k->kind == K_CALL_GRAPH) {
    ps->c->record.call_graph_mode = mode;
    ps->c->record.stack_bytes = bytes;
  }
  return BP_OK;
}

static bp_code set_number(struct parse *ps, const struct key *k,
                          const struct where *w, const cJSON *j)
{
  char what[96];
  bool whole = k->kind == K_U64 || k->kind == K_UINT;
  double v = cJSON_IsNumber(j) ? j->valuedouble : 0;
  bool ok = cJSON_IsNumber(j) && v >= k->min && v <= k->max;
  if(ok && whole)
    ok = (double)(uint64_t)v == v;
  if(!ok) {
    got(what, sizeof(what), w, j);
    if(k->kind == K_MS)
      return fail(ps->err, w, "expected seconds, more than 0 and at most "
                  "%.0f, got %s", k->max, what);
    return fail(ps->err, w, "expected %s from %.0f to %.0f, got %s",
                whole ? "a whole number" : "a number", k->min, k->max, what);
  }
  if(k->off == F(record.ring_mib) && ((uint64_t)v & ((uint64_t)v - 1))) {
    got(what, sizeof(what), w, j);
    return fail(ps->err, w, "expected a power of two from 1 to 1024 (MiB "
                "per CPU), got %s", what);
  }
  switch(k->kind) {
  case K_U64:
    *(uint64_t *)field(ps->c, k) = (uint64_t)v;
    /* a rate and a period exclude each other; the last one given wins */
    if(k->off == F(record.frequency))
      ps->c->record.period = 0;
    else if(k->off == F(record.period))
      ps->c->record.frequency = 0;
    break;
  case K_UINT:
    *(unsigned *)field(ps->c, k) = (unsigned)v;
    break;
  case K_MS: {
    long ms = (long)(v * 1000 + 0.5);
    *(long *)field(ps->c, k) = ms ? ms : 1;
    break;
  }
  default:
    *(double *)field(ps->c, k) = v;
    break;
  }
  return BP_OK;
}

/* Store j (or a variable's value converted to JSON) in k's field. */
static bp_code set_value(struct parse *ps, unsigned idx,
                         const struct where *w, const cJSON *j)
{
  const struct key *k = &keys[idx];
  char what[96];
  ps->given |= (uint64_t)1 << idx;
  switch(k->kind) {
  case K_BOOL:
    if(!cJSON_IsBool(j)) {
      got(what, sizeof(what), w, j);
      return fail(ps->err, w, "expected true or false, got %s", what);
    }
    *(bool *)field(ps->c, k) = cJSON_IsTrue(j);
    return BP_OK;
  case K_U64:
  case K_UINT:
  case K_MS:
  case K_NUMBER:
    return set_number(ps, k, w, j);
  case K_COUNTERS:
    return set_counters(ps, k, w, j);
  case K_OBJ:
    return BP_OK;  /* objects are walked by parse_object */
  default:
    return set_string(ps, k, w, j);
  }
}

/* -------------------------------------------------------------- the file */

static bp_code parse_object(struct parse *ps, const char *origin,
                            const char *prefix, const cJSON *obj);

/* Whether name can follow "$." in a path as it is. */
static bool plain_name(const char *name)
{
  if(!*name || strlen(name) > 64)
    return false;
  for(const char *p = name; *p; p++)
    if(!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
         (*p >= '0' && *p <= '9') || *p == '_' || *p == '-'))
      return false;
  return true;
}

static bp_code parse_member(struct parse *ps, const char *origin,
                            const char *prefix, const cJSON *m)
{
  char path[256], hint[128];
  struct where w = {.origin = origin, .path = path};
  int n = *prefix ? snprintf(path, sizeof(path), "%s.%s", prefix, m->string)
                  : snprintf(path, sizeof(path), "%s", m->string);
  unsigned idx = n >= 0 && (size_t)n < sizeof(path) ? key_index(path)
                                                    : (unsigned)NKEYS;
  if(idx == NKEYS) {
    suggest(hint, sizeof(hint), prefix, m->string);
    if(!plain_name(m->string)) {
      /* a name a terminal could act on is shown escaped, as ["..."] */
      char name[96];
      quoted(name, sizeof(name), m->string);
      return bpi_err_set(ps->err, BPE_CONFIG, 0, "%s: $%s%s[%s]: unknown "
                         "key%s", origin, *prefix ? "." : "", prefix, name,
                         hint);
    }
    return fail(ps->err, &w, "unknown key%s", hint);
  }
  if(keys[idx].kind != K_OBJ)
    return set_value(ps, idx, &w, m);
  if(!cJSON_IsObject(m)) {
    got(hint, sizeof(hint), &w, m);
    return fail(ps->err, &w, "expected an object, got %s", hint);
  }
  return parse_object(ps, origin, path, m);
}

static bp_code parse_object(struct parse *ps, const char *origin,
                            const char *prefix, const cJSON *obj)
{
  const cJSON *m, *prev;
  cJSON_ArrayForEach(m, obj) {
    for(prev = obj->child; prev != m; prev = prev->next)
      if(!strcmp(prev->string, m->string)) {
        char name[96];
        quoted(name, sizeof(name), m->string);
        struct where w = {.origin = origin, .path = prefix};
        return fail(ps->err, &w, "duplicate key %s", name);
      }
    bp_code rc = parse_member(ps, origin, prefix, m);
    if(rc)
      return rc;
  }
  return BP_OK;
}

/* Line and column (1-based, columns in bytes) of offset off. */
static void line_col(const char *s, size_t off, unsigned *line,
                     unsigned *col)
{
  *line = 1;
  *col = 1;
  for(size_t i = 0; i < off; i++) {
    if(s[i] == '\n') {
      (*line)++;
      *col = 1;
    }
    else
      (*col)++;
  }
}

static bp_code syntax_error(struct bp_err *err, const char *origin,
                            const char *s, size_t len, size_t off,
                            const char *what)
{
  unsigned line, col;
  char near[48];
  if(off > len)
    off = len;
  /* where an object's key should start, cJSON points one past the byte
   * that is not a '"': step back onto it */
  if(off > 0 && off <= len && s[off - 1] != '"') {
    size_t k = off - 1;
    while(k > 0 && strchr(" \t\r\n", s[k - 1]))
      k--;
    if(k > 0 && (s[k - 1] == ',' || s[k - 1] == '{'))
      off--;
  }
  line_col(s, off, &line, &col);
  if(off >= len)
    return bpi_err_set(err, BPE_CONFIG, 0, "%s:%u:%u: %s at the end of the "
                       "file", origin, line, col, what);
  char piece[17];
  size_t n = len - off < 16 ? len - off : 16;
  memcpy(piece, s + off, n);
  piece[n] = '\0';
  quoted(near, sizeof(near), piece);
  return bpi_err_set(err, BPE_CONFIG, 0, "%s:%u:%u: %s near %s", origin,
                     line, col, what, near);
}

/* Keys that only make sense together. */
static bp_code check_combinations(struct parse *ps, const char *origin,
                                  bool env)
{
  uint64_t freq = (uint64_t)1 << key_of(F(record.frequency), K_U64);
  uint64_t period = (uint64_t)1 << key_of(F(record.period), K_U64);
  if((ps->given & freq) && (ps->given & period)) {
    if(env)
      return bpi_err_set(ps->err, BPE_CONFIG, 0, "BENCHPROF_FREQUENCY and "
                         "BENCHPROF_PERIOD are both set; give one");
    return bpi_err_set(ps->err, BPE_CONFIG, 0, "%s: $.record: \"frequency\" "
                       "and \"period\" are both given; give one", origin);
  }
  return BP_OK;
}

bp_code bpi_config_parse(struct bp_config *c, const char *json, size_t len,
                         const char *origin, struct bp_err *err)
{
  struct bp_config tmp;
  struct parse ps = {.c = &tmp, .err = err};
  cJSON *root = NULL;
  char *copy = NULL;
  bp_code rc;
  const char *nul = memchr(json, '\0', len);
  if(nul)
    return syntax_error(err, origin, json, len, (size_t)(nul - json),
                        "a NUL byte");
  /* cJSON wants a terminated string: the length counts the NUL so that
   * anything after the document is an error */
  copy = malloc(len + 1);
  if(!copy)
    return bpi_err_set(err, BPE_NOMEM, 0, "reading %s", origin);
  memcpy(copy, json, len);
  copy[len] = '\0';
  rc = copy_config(&tmp, c);
  if(rc) {
    rc = bpi_err_set(err, BPE_NOMEM, 0, "reading %s", origin);
    goto out;
  }
  const char *end = NULL;
  root = cJSON_ParseWithLengthOpts(copy, len + 1, &end, true);
  if(!root) {
    rc = syntax_error(err, origin, copy, len,
                      end ? (size_t)(end - copy) : 0, "JSON syntax error");
    goto out;
  }
  if(!cJSON_IsObject(root)) {
    char what[64];
    struct where w = {.origin = origin, .path = ""};
    got(what, sizeof(what), &w, root);
    rc = fail(err, &w, "expected an object, got %s", what);
    goto out;
  }
  rc = parse_object(&ps, origin, "", root);
  if(!rc)
    rc = check_combinations(&ps, origin, false);
  if(!rc) {
    tmp.given |= ps.given;
    bpi_config_cleanup(c);
    *c = tmp;
    memset(&tmp, 0, sizeof(tmp));
  }
out:
  bpi_config_cleanup(&tmp);
  cJSON_Delete(root);
  free(copy);
  return rc;
}

/* The keys that hold secrets. */
static bool holds_token(uint64_t given)
{
  return given & ((uint64_t)1 << key_of(F(bencher.token), K_SECRET));
}

bp_code bpi_config_load_file(struct bp_config *c, const char *path,
                             struct bp_err *err)
{
  struct stat st;
  char *text = NULL;
  size_t len = 0;
  if(stat(path, &st)) {
    if(errno == ENOENT || errno == ENOTDIR)
      return bpi_err_set(err, BPE_NOT_FOUND, errno, "no config file '%s'",
                         path);
    return bpi_err_set(err, BPE_IO, errno, "cannot read config file '%s'",
                       path);
  }
  if(S_ISDIR(st.st_mode))
    return bpi_err_set(err, BPE_IO, EISDIR, "config file '%s' is a "
                       "directory", path);
  if(st.st_size > MAX_FILE_BYTES)
    return bpi_err_set(err, BPE_CONFIG, 0, "config file '%s' is larger "
                       "than %d bytes", path, MAX_FILE_BYTES);
  bp_code rc = bpi_file_read_max(path, MAX_FILE_BYTES, &text, &len, err);
  if(rc)
    return rc;
  uint64_t before = c->given;
  c->given = 0;
  rc = bpi_config_parse(c, text, len, path, err);
  free(text);
  if(rc) {
    c->given = before;
    return rc;
  }
  if(set_str(&c->file, path)) {
    c->given |= before;
    return bpi_err_set(err, BPE_NOMEM, 0, "config");
  }
  if(holds_token(c->given) && (st.st_mode & (S_IRGRP | S_IROTH)))
    snprintf(c->warning, sizeof(c->warning), "config file '%s' holds "
             "bencher.token and others can read it (mode %04o): chmod 600 "
             "it, or put the token in an environment variable named by "
             "bencher.token_env", path, (unsigned)(st.st_mode & 07777));
  c->given |= before;
  return BP_OK;
}

/* -------------------------------------------------------- environment */

const char *bpi_env_get(char *const *envp, const char *name)
{
  size_t n = strlen(name);
  for(size_t i = 0; envp && envp[i]; i++)
    if(!strncmp(envp[i], name, n) && envp[i][n] == '=')
      return envp[i] + n + 1;
  return NULL;
}

static bool parse_bool_text(const char *s, bool *out)
{
  static const char *const yes[] = {"1", "true", "yes", "on"};
  static const char *const no[] = {"0", "false", "no", "off"};
  for(size_t i = 0; i < BP_ARRAY_LEN(yes); i++) {
    if(!strcmp(s, yes[i])) {
      *out = true;
      return true;
    }
    if(!strcmp(s, no[i])) {
      *out = false;
      return true;
    }
  }
  return false;
}

/* A variable's text as the JSON value the file would hold; NULL when out
 * of memory.  A text that is not of the key's type becomes a string, which
 * the setter then refuses, naming the variable and its value. */
static cJSON *env_value(const struct key *k, const char *s)
{
  bool b;
  switch(k->kind) {
  case K_BOOL:
    return parse_bool_text(s, &b) ? cJSON_CreateBool(b) : cJSON_CreateString(s);
  case K_U64:
  case K_UINT:
  case K_MS:
  case K_NUMBER: {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if(errno || end == s || *end || strpbrk(s, "xXpPnN"))
      return cJSON_CreateString(s);
    return cJSON_CreateNumber(v);
  }
  case K_COUNTERS: {
    if(!strcmp(s, "none") || !strcmp(s, "false"))
      return cJSON_CreateFalse();
    cJSON *arr = cJSON_CreateArray();
    const char *p = s;
    while(arr) {
      const char *comma = strchr(p, ',');
      size_t n = comma ? (size_t)(comma - p) : strlen(p);
      char *item = strndup(p, n);
      cJSON *e = item ? cJSON_CreateString(item) : NULL;
      free(item);
      if(!e) {
        cJSON_Delete(arr);
        return NULL;
      }
      cJSON_AddItemToArray(arr, e);
      if(!comma)
        break;
      p = comma + 1;
    }
    return arr;
  }
  default:
    return cJSON_CreateString(s);
  }
}

bp_code bpi_config_apply_env(struct bp_config *c, char *const *envp,
                             struct bp_err *err)
{
  struct bp_config tmp;
  struct parse ps = {.c = &tmp, .err = err};
  bp_code rc = copy_config(&tmp, c);
  if(rc)
    rc = bpi_err_set(err, BPE_NOMEM, 0, "config");
  for(unsigned i = 0; !rc && i < NKEYS; i++) {
    const char *v = keys[i].env ? bpi_env_get(envp, keys[i].env) : NULL;
    /* set but empty counts as unset, as CI systems define variables
     * they have no value for */
    if(!v || !*v)
      continue;
    struct where w = {.origin = keys[i].env, .raw = v};
    cJSON *j = env_value(&keys[i], v);
    rc = j ? set_value(&ps, i, &w, j)
           : bpi_err_set(err, BPE_NOMEM, 0, "config");
    cJSON_Delete(j);
  }
  if(!rc)
    rc = check_combinations(&ps, NULL, true);
  if(!rc) {
    tmp.given |= ps.given;
    bpi_config_cleanup(c);
    *c = tmp;
    memset(&tmp, 0, sizeof(tmp));
  }
  bpi_config_cleanup(&tmp);
  return rc;
}

/* ---------------------------------------------------------- the whole */

const char *bpi_config_path(const char *flag, char *const *envp,
                            enum bp_config_source *source)
{
  const char *env = bpi_env_get(envp, "BENCHPROF_CONFIG");
  if(flag) {
    *source = BP_CONFIG_FLAG;
    return flag;
  }
  if(env && *env) {
    *source = BP_CONFIG_ENV;
    return env;
  }
  *source = BP_CONFIG_DEFAULT;
  return BP_CONFIG_DEFAULT_PATH;
}

bp_code bpi_config_load(struct bp_config *c, const char *flag,
                        char *const *envp, struct bp_err *err)
{
  enum bp_config_source source;
  struct bp_err scratch = {0};
  const char *path = bpi_config_path(flag, envp, &source);
  bp_code rc = bpi_config_init(c);
  if(rc)
    return bpi_err_set(err, rc, 0, "config");
  rc = bpi_config_load_file(c, path, &scratch);
  if(rc == BPE_NOT_FOUND && source == BP_CONFIG_DEFAULT)
    rc = BP_OK;   /* no file where none was asked for: no configuration */
  else if(rc)
    *err = scratch;
  else
    c->source = source;
  /* the overrides apply even after a bad file, so that BENCHPROF_STRICT
   * and BENCHPROF_ENABLED still decide what the caller does about it */
  bp_code env_rc = bpi_config_apply_env(c, envp, rc ? &scratch : err);
  return rc ? rc : env_rc;
}

/* ---------------------------------------------------------------- show */

static bool is_unset(const struct bp_config *c, const struct key *k)
{
  switch(k->kind) {
  case K_OBJ:
  case K_BOOL:
  case K_UINT:
  case K_NUMBER:
  case K_COUNTERS:   /* unset shows as false */
    return false;
  case K_MS:         /* every duration but the deadline has a default */
    return *(const long *)cfield(c, k) == 0;
  case K_U64:
    return *(const uint64_t *)cfield(c, k) == 0;
  default:
    return *(char *const *)cfield(c, k) == NULL;
  }
}

static void show_number(struct bp_buf *b, double v)
{
  char num[40];
  for(int prec = 15; prec <= 17; prec++) {
    snprintf(num, sizeof(num), "%.*g", prec, v);
    if(strtod(num, NULL) == v)
      break;
  }
  bpi_buf_adds(b, num);
}

static void show_value(struct bp_buf *b, const struct bp_config *c,
                       const struct key *k)
{
  const void *f = cfield(c, k);
  switch(k->kind) {
  case K_BOOL:
    bpi_buf_adds(b, *(const bool *)f ? "true" : "false");
    break;
  case K_U64:
    bpi_buf_printf(b, "%llu", (unsigned long long)*(const uint64_t *)f);
    break;
  case K_UINT:
    bpi_buf_printf(b, "%u", *(const unsigned *)f);
    break;
  case K_MS:
    show_number(b, (double)*(const long *)f / 1000);
    break;
  case K_NUMBER:
    show_number(b, *(const double *)f);
    break;
  case K_SECRET:
    bpi_buf_adds(b, "\"<redacted>\"");
    break;
  case K_COUNTERS: {
    const char *s = *(char *const *)f;
    if(!s) {
      bpi_buf_adds(b, "false");
      break;
    }
    bpi_buf_addc(b, '[');
    while(*s) {
      const char *comma = strchr(s, ',');
      size_t n = comma ? (size_t)(comma - s) : strlen(s);
      char *item = strndup(s, n);
      if(!item) {
        b->failed = true;
        return;
      }
      bpi_buf_json_str(b, item);
      free(item);
      s += n;
      if(*s) {
        bpi_buf_adds(b, ", ");
        s++;
      }
    }
    bpi_buf_addc(b, ']');
    break;
  }
  default:
    bpi_buf_json_str(b, *(char *const *)f);
    break;
  }
}

static void show_object(struct bp_buf *b, const struct bp_config *c,
                        const char *prefix, int depth)
{
  bool first = true;
  bpi_buf_addc(b, '{');
  for(unsigned i = 0; i < NKEYS; i++) {
    const struct key *k = &keys[i];
    if(!is_child(k->path, prefix) || is_unset(c, k))
      continue;
    bpi_buf_printf(b, "%s\n%*s", first ? "" : ",", 2 * (depth + 1), "");
    first = false;
    bpi_buf_json_str(b, leaf(k->path));
    bpi_buf_adds(b, ": ");
    if(k->kind == K_OBJ)
      show_object(b, c, k->path, depth + 1);
    else
      show_value(b, c, k);
  }
  if(!first)
    bpi_buf_printf(b, "\n%*s", 2 * depth, "");
  bpi_buf_addc(b, '}');
}

bp_code bpi_config_show(const struct bp_config *c, struct bp_buf *out)
{
  show_object(out, c, "", 0);
  bpi_buf_addc(out, '\n');
  return bpi_buf_failed(out) ? BPE_NOMEM : BP_OK;
}

/* -------------------------------------------------------------- tokens */

static const char *env_token(char *const *envp, const char *name)
{
  const char *v = name ? bpi_env_get(envp, name) : NULL;
  return v && *v ? v : NULL;
}

const char *bpi_config_bencher_token(const struct bp_config *c,
                                     char *const *envp)
{
  if(c->bencher.token)
    return c->bencher.token;
  return env_token(envp, c->bencher.token_env);
}

const char *bpi_config_store_token(const struct bp_config *c,
                                   char *const *envp)
{
  return env_token(envp, c->store.token_env);
}

const char *bpi_config_comment_token(const struct bp_config *c,
                                     const char *provider,
                                     char *const *envp)
{
  if(c->comment.token_env)
    return env_token(envp, c->comment.token_env);
  if(provider && !strcmp(provider, "github"))
    return env_token(envp, "GITHUB_TOKEN");
  /* an access token: GitLab's notes API refuses the job's CI_JOB_TOKEN */
  if(provider && !strcmp(provider, "gitlab"))
    return env_token(envp, "GITLAB_TOKEN");
  return NULL;
}

/* ------------------------------------------------------------ mapping */

void bpi_config_record_opts(const struct bp_config *c,
                            struct bp_record_opts *o)
{
  o->event = c->record.event;
  o->freq = c->record.frequency;
  o->period = c->record.period;
  o->call_graph = c->record.call_graph_mode;
  o->stack_bytes = c->record.stack_bytes;
  o->counters = c->record.counters;
  o->kernel = c->record.kernel;
  o->debuginfod = c->symbols.debuginfod;
  o->debuginfod_cache = c->symbols.debuginfod_cache;
  o->debuginfod_timeout_ms = c->symbols.debuginfod_timeout_ms;
  if(c->record.ring_mib) {
    uint64_t pages = (c->record.ring_mib << 20) /
                     (uint64_t)sysconf(_SC_PAGESIZE);
    o->ring_pages = pages ? (uint32_t)pages : 1;
  }
}

void bpi_config_http_opts(const struct bp_config *c, struct bp_http_opts *o)
{
  o->connect_timeout_ms = c->network.connect_timeout_ms;
  o->total_timeout_ms = c->network.timeout_ms;
  o->retries = c->network.retries;
  o->max_retry_after_ms = c->network.max_retry_after_ms;
  o->deadline_ms = c->network.deadline_ms ?
    bpi_http_now_ms() + c->network.deadline_ms : 0;
  o->ca_file = c->network.ca_file;
}

void bpi_config_store_opts(const struct bp_config *c, char *const *envp,
                           struct bp_store_opts *o)
{
  o->url = c->store.url;
  o->public_url = c->store.public_url;
  o->s3_endpoint = c->store.s3.endpoint;
  o->s3_region = c->store.s3.region;
  o->s3_path_style = c->store.s3.path_style;
  o->aws_key = env_token(envp, "AWS_ACCESS_KEY_ID");
  o->aws_secret = env_token(envp, "AWS_SECRET_ACCESS_KEY");
  o->aws_session_token = env_token(envp, "AWS_SESSION_TOKEN");
  o->bearer = bpi_config_store_token(c, envp);
}

void bpi_config_bencher_opts(const struct bp_config *c, char *const *envp,
                             struct bp_bencher_opts *o)
{
  o->host = c->bencher.host;
  o->token = bpi_config_bencher_token(c, envp);
}

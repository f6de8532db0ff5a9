/* config_parse: a configuration file -> struct bp_config, strictly:
 * every member checked against its key in bpi_config_keys[] (type, range,
 * URL scheme, call-graph grammar, event list), unknown keys with a
 * suggestion, errors naming the file and the JSON path ($.record.frequency)
 * or, for bad JSON, the line and column.  The environment's values go
 * through the same setters (bpi_config_set_value). */
#include "bp_setup.h"
#include "config.h"
#include "config_int.h"
#include "err.h"
#include "fileio.h"
#include "http.h"
#include "record.h"    /* BP_RECORD_MAX_STACK_BYTES */
#include "storekey.h"  /* bpi_suite_valid */
#include "text.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

/* A config file is small; anything bigger is a mistake. */
#define MAX_FILE_BYTES (1024 * 1024)

/* ------------------------------------------------------------ messages */

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
  for(unsigned i = 0; i < bpi_config_nkeys; i++) {
    if(!is_child(bpi_config_keys[i].path, parent))
      continue;
    const char *sib = leaf(bpi_config_keys[i].path);
    size_t d = bpi_text_edit_distance(name, strlen(name), sib, strlen(sib),
                                      false);
    if(d < best) {
      best = d;
      pick = leaf(bpi_config_keys[i].path);
    }
  }
  if(pick) {
    snprintf(out, cap, "; did you mean \"%s\"?", pick);
    return;
  }
  for(unsigned i = 0; i < bpi_config_nkeys; i++)
    if(!strcmp(leaf(bpi_config_keys[i].path), name)) {
      snprintf(out, cap, "; did you mean $.%s?", bpi_config_keys[i].path);
      return;
    }
}

/* -------------------------------------------------------------- values */

/* An AWS access key ID (s all uppercase letters and digits): a 4-letter
 * prefix that says what kind of key (AKIA a user's, ASIA a temporary
 * one, ...) and 16 more characters, 20 in all.  It is the credential
 * most often pasted where a variable's name belongs, and it passes the
 * naming rule. */
static bool aws_key_id(const char *s, size_t len)
{
  static const char *const prefixes[] = {
    "AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AIPA", "ANPA", "ANVA",
    "APKA", "AROA",
  };
  if(len != 20)
    return false;
  for(size_t i = 0; i < BP_ARRAY_LEN(prefixes); i++)
    if(!strncmp(s, prefixes[i], 4))
      return true;
  return false;
}

bool bpi_config_credential_like(const char *s)
{
  bool letter = false, digit = false;
  size_t n = 0;
  for(; s[n]; n++) {
    letter |= s[n] >= 'A' && s[n] <= 'Z';
    digit |= s[n] >= '0' && s[n] <= '9';
    if(!(s[n] >= 'A' && s[n] <= 'Z') && !(s[n] >= '0' && s[n] <= '9'))
      return false;   /* a '_' joins a name's words; others: no token's */
  }
  /* a long run of letters and digits mixed, no '_': the shape of a
   * random key (uppercase hex, base32), not of a name */
  return aws_key_id(s, n) ||
         (n >= BP_CONFIG_KEY_LOOKALIKE_LEN && letter && digit);
}

bool bpi_config_env_name(const char *s)
{
  if(!s || !*s || (*s >= '0' && *s <= '9'))
    return false;
  for(const char *c = s; *c; c++)
    if(!(*c == '_' || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')))
      return false;
  return !bpi_config_credential_like(s);
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

enum bp_url_check bpi_config_url_check(const char *s, enum bp_url_kind kind)
{
  bool ok = s && (kind == BP_URL_STORE ? is_store_url(s) : is_http_url(s));
  if(!ok)
    return BP_URL_WRONG;
  return bpi_http_url_has_credentials(s) ? BP_URL_CREDENTIALS : BP_URL_OK;
}

const char *bpi_config_url_expected(enum bp_url_kind kind)
{
  return kind == BP_URL_STORE ? "a file:///, s3://, http:// or https:// URL"
                              : "an http:// or https:// URL";
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
    return bpi_config_set_str(str_field(ps->c, k), NULL) ?
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
  if(bpi_buf_failed(&b) ||
     bpi_config_set_str(str_field(ps->c, k), b.len ? b.data : NULL))
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
    [K_ENVNAME] = "the name of an environment variable holding the token "
                  "(like BENCHER_API_TOKEN: uppercase letters, digits and "
                  "'_', not starting with a digit), not the token itself",
    [K_SECRET] = "a non-empty string",
    [K_CALL_GRAPH] = "fp, dwarf, dwarf,BYTES (a multiple of 8 up to 65528), "
                     "auto or lbr",
    [K_SUITE] = "a suite's name (1 to 64 ASCII letters, digits, '.', '_' "
                "or '-')",
    [K_WALL_TIME] = "\"separate\" (a wall-time-only change is not counted) "
                    "or \"regression\" (it is)",
  };
  const char *s = cJSON_IsString(j) ? j->valuestring : NULL;
  bool ok = s && *s;
  bool url = k->kind == K_STORE_URL || k->kind == K_HTTP_URL;
  enum bp_url_kind url_kind = k->kind == K_STORE_URL ? BP_URL_STORE
                                                     : BP_URL_HTTP;
  const char *expected = url ? bpi_config_url_expected(url_kind)
                             : expect[k->kind];
  enum bp_url_check url_check = BP_URL_OK;
  enum bp_call_graph mode = BP_CALL_GRAPH_AUTO;
  uint32_t bytes = 0;
  if(ok && url) {
    url_check = bpi_config_url_check(s, url_kind);
    ok = url_check != BP_URL_WRONG;
  }
  else if(ok && k->kind == K_ENVNAME)
    ok = bpi_config_env_name(s);
  else if(ok && k->kind == K_SUITE)
    ok = bpi_suite_valid(s, &(const char *){NULL});
  else if(ok && k->kind == K_WALL_TIME)
    ok = !strcmp(s, "separate") || !strcmp(s, "regression");
  else if(ok && k->kind == K_CALL_GRAPH)
    ok = !bpi_text_call_graph(s, BP_RECORD_MAX_STACK_BYTES, &mode, &bytes,
                              &(struct bp_err){0});
  if(ok && url_check == BP_URL_CREDENTIALS)  /* never echo them either */
    return fail(ps->err, w, "expected %s without credentials (user:password@"
                " goes into manifests and the spool; use the token "
                "variables), got a URL with credentials", expected);
  if(!ok) {
    /* never echo a secret: a token's variable's name that is not one
     * may be the token itself */
    if(k->kind == K_ENVNAME && s && bpi_config_credential_like(s))
      return fail(ps->err, w, "expected %s, got a value that is not shown; "
                  "%s", expected, BP_CONFIG_CREDENTIAL_RULE);
    if(k->kind == K_ENVNAME && s)
      snprintf(what, sizeof(what), "a value that is not shown");
    else if(k->kind == K_SECRET)
      snprintf(what, sizeof(what), "%s", s ? "an empty string" :
               cJSON_IsNumber(j) ? "a number" : "another type");
    else if(s && !w->raw)
      quoted(what, sizeof(what), s);
    else
      got(what, sizeof(what), w, j);
    return fail(ps->err, w, "expected %s, got %s", expected, what);
  }
  if(bpi_config_set_str(str_field(ps->c, k), s))
    return bpi_err_set(ps->err, BPE_NOMEM, 0, "config");
  if(k->kind == K_WALL_TIME)
    ps->c->comment.wall_time_counted = !strcmp(s, "regression");
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
bp_code bpi_config_set_value(struct parse *ps, unsigned idx,
                             const struct where *w, const cJSON *j)
{
  const struct key *k = &bpi_config_keys[idx];
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
  unsigned idx = n >= 0 && (size_t)n < sizeof(path)
                 ? bpi_config_key_index(path) : bpi_config_nkeys;
  if(idx == bpi_config_nkeys) {
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
  if(bpi_config_keys[idx].kind != K_OBJ)
    return bpi_config_set_value(ps, idx, &w, m);
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
bp_code bpi_config_check_combinations(struct parse *ps, const char *origin,
                                      bool env)
{
  uint64_t freq = (uint64_t)1 << bpi_config_key_of(F(record.frequency),
                                                   K_U64);
  uint64_t period = (uint64_t)1 << bpi_config_key_of(F(record.period),
                                                     K_U64);
  if((ps->given & freq) && (ps->given & period)) {
    if(env)
      return bpi_err_set(ps->err, BPE_CONFIG, 0, "BENCHPROF_FREQUENCY and "
                         "BENCHPROF_PERIOD are both set; give one");
    return bpi_err_set(ps->err, BPE_CONFIG, 0, "%s: $.record: \"frequency\" "
                       "and \"period\" are both given; give one", origin);
  }
  return BP_OK;
}

/* Where the escape \u0000 stands inside a string of json, or len.  cJSON
 * reads it as the string's end, so "a\u0000b" would silently become
 * "a": an output directory or project other than the one written. */
static size_t nul_escape_at(const char *json, size_t len)
{
  bool in_str = false;
  for(size_t i = 0; i < len; i++) {
    if(json[i] == '"')
      in_str = !in_str;
    else if(in_str && json[i] == '\\' && i + 1 < len) {
      if(json[i + 1] == 'u' && len - i >= 6 &&
         !memcmp(json + i + 2, "0000", 4))
        return i;
      i++;  /* the escaped character, a quote included */
    }
  }
  return len;
}

/* Whether an object the parse refused still says "strict": true at its
 * top: the operator asked that a configuration that cannot be used fail
 * the job, and a mistake elsewhere in the file is exactly that case. */
static bool asks_strict(const cJSON *root)
{
  return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "strict"));
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
  size_t esc = nul_escape_at(json, len);
  if(esc < len)
    return syntax_error(err, origin, json, len, esc, "\\u0000 in a string");
  /* cJSON wants a terminated string: the length counts the NUL so that
   * anything after the document is an error */
  copy = malloc(len + 1);
  if(!copy)
    return bpi_err_set(err, BPE_NOMEM, 0, "reading %s", origin);
  memcpy(copy, json, len);
  copy[len] = '\0';
  rc = bpi_config_copy(&tmp, c);
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
    rc = bpi_config_check_combinations(&ps, origin, false);
  if(!rc) {
    tmp.given |= ps.given;
    bpi_config_cleanup(c);
    *c = tmp;
    memset(&tmp, 0, sizeof(tmp));
  }
  else if(asks_strict(root))
    c->strict = true;
out:
  bpi_config_cleanup(&tmp);
  cJSON_Delete(root);
  free(copy);
  return rc;
}

/* The keys that hold secrets. */
static bool holds_token(uint64_t given)
{
  return given & ((uint64_t)1 << bpi_config_key_of(F(bencher.token),
                                                   K_SECRET));
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
  if(bpi_config_set_str(&c->file, path)) {
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

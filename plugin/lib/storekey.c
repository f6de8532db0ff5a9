/* storekey: the store's key scheme (see storekey.h). */
#include "bp_setup.h"
#include "storekey.h"
#include "buf.h"
#include "rundir.h"
#include "sha256.h"
#include "text.h"

#include <stdlib.h>
#include <string.h>

/* A bounded part: this much of the encoding, then '~' and the hash. */
#define PART_PREFIX 96
#define PART_HASH_HEX 16

bool bpi_store_key_char(unsigned char c)
{
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-' ||
    c == '+' || c == '=' || c == ',' || c == '@';
}

static void add_pct(struct bp_buf *b, unsigned char c)
{
  static const char hex[] = "0123456789ABCDEF";
  bpi_buf_addc(b, '%');
  bpi_buf_addc(b, hex[c >> 4]);
  bpi_buf_addc(b, hex[c & 15]);
}

static char *finish(struct bp_buf *b)
{
  bpi_buf_addc(b, '\0');
  if(bpi_buf_failed(b)) {
    bpi_buf_cleanup(b);
    return NULL;
  }
  return b->data;
}

static void add_encoded(struct bp_buf *b, const char *name)
{
  if(!name[0])
    bpi_buf_adds(b, "%00");   /* decodes back to "" (a name has no NUL) */
  else if(!strcmp(name, ".") || !strcmp(name, "..")) {
    for(const char *p = name; *p; p++)
      add_pct(b, (unsigned char)*p);
  }
  else {
    const unsigned char *p = (const unsigned char *)name;
    if(!strcmp(name, BP_STORE_PAGE))   /* never a page's key */
      add_pct(b, *p++);
    for(; *p; p++) {
      if(bpi_store_key_char(*p))
        bpi_buf_addc(b, (char)*p);
      else
        add_pct(b, *p);
    }
  }
}

/* Where to cut an encoding of len bytes to at most PART_PREFIX: never
 * inside a %XX, nor between the bytes of one UTF-8 character. */
static size_t prefix_cut(const char *enc, size_t len)
{
  size_t cut = len < PART_PREFIX ? len : PART_PREFIX;
  while(cut > 0 && ((cut >= 1 && enc[cut - 1] == '%') ||
                    (cut >= 2 && enc[cut - 2] == '%')))
    cut--;
  /* a %XX that continues a character (80..BF) starts no character */
  while(cut >= 3 && enc[cut] == '%' && (enc[cut + 1] == '8' ||
        enc[cut + 1] == '9' || enc[cut + 1] == 'A' || enc[cut + 1] == 'B'))
    cut -= 3;
  return cut;
}

void bpi_store_add_key_part(struct bp_buf *b, const char *name)
{
  struct bp_buf enc;
  bpi_buf_init(&enc);
  add_encoded(&enc, name);
  if(bpi_buf_failed(&enc)) {
    b->failed = true;
    return;
  }
  if(enc.len <= BP_STORE_KEY_PART_MAX) {
    bpi_buf_add(b, enc.data, enc.len);
    bpi_buf_cleanup(&enc);
    return;
  }
  /* too long for a file name (255 bytes) once encoded: a readable prefix,
   * then '~' (never kept as it is by the encoding, so no plain part looks
   * like this) and a hash of the whole name, so it stays unique */
  unsigned char d[BP_SHA256_LEN];
  char hex[2 * BP_SHA256_LEN + 1];
  bpi_sha256(name, strlen(name), d);
  bpi_hex_encode(d, sizeof(d), hex);
  bpi_buf_add(b, enc.data, prefix_cut(enc.data, enc.len));
  bpi_buf_addc(b, '~');
  bpi_buf_add(b, hex, PART_HASH_HEX);
  bpi_buf_cleanup(&enc);
}

char *bpi_store_key_part(const char *name)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_store_add_key_part(&b, name);
  return finish(&b);
}

/* One key part's name (up to end) appended to b. */
static void add_decoded(struct bp_buf *b, const char *part, const char *end)
{
  /* a bounded part: its prefix, and an ellipsis for the rest */
  const char *tilde = memchr(part, '~', (size_t)(end - part));
  for(const char *p = part; p < end && p != tilde; p++) {
    int hi, lo;
    if(*p == '%' && (hi = bpi_text_hex_value(p[1])) >= 0 &&
       (lo = bpi_text_hex_value(p[2])) >= 0) {
      if(hi || lo)   /* "%00" is the empty name, never a byte */
        bpi_buf_addc(b, (char)(hi * 16 + lo));
      p += 2;
    }
    else
      bpi_buf_addc(b, *p);
  }
  if(tilde)
    bpi_buf_adds(b, "\xe2\x80\xa6");
}

char *bpi_store_key_decode(const char *part)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  const char *sep = strstr(part, BP_STORE_SUITE_SEP);
  if(!sep)
    add_decoded(&b, part, part + strlen(part));
  else {   /* a testbed's part with its suite's: "TESTBED (SUITE)" */
    const char *suite = sep + strlen(BP_STORE_SUITE_SEP);
    add_decoded(&b, part, sep);
    bpi_buf_adds(&b, " (");
    add_decoded(&b, suite, suite + strlen(suite));
    bpi_buf_addc(&b, ')');
  }
  return finish(&b);
}

bool bpi_suite_valid(const char *suite, const char **why)
{
  size_t len = suite ? strlen(suite) : 0;
  *why = NULL;
  if(!len)
    *why = "is empty";
  else if(len > BP_SUITE_MAX)
    *why = "is longer than 64 bytes";   /* BP_SUITE_MAX */
  /* the name stands as it is in the commit status's context
   * (benchprof/NAME) and the comment's marker: a character either would
   * have to replace could make two suites' statuses and comments one */
  for(size_t i = 0; !*why && i < len; i++) {
    char c = suite[i];
    if(!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
         (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
      *why = "has a character other than a letter, a digit, '.', '_' or '-'";
  }
  return !*why;
}

void bpi_store_add_testbed_part(struct bp_buf *b, const char *testbed,
                                const char *suite)
{
  bpi_store_add_key_part(b, testbed);
  if(suite && *suite) {
    bpi_buf_adds(b, BP_STORE_SUITE_SEP);
    bpi_store_add_key_part(b, suite);
  }
}

char *bpi_store_testbed_part(const char *testbed, const char *suite)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_store_add_testbed_part(&b, testbed, suite);
  return finish(&b);
}

bool bpi_store_testbed_split(const char *part, char **testbed, char **suite)
{
  const char *sep = strstr(part, BP_STORE_SUITE_SEP);
  *testbed = sep ? strndup(part, (size_t)(sep - part)) : strdup(part);
  *suite = sep ? strdup(sep + strlen(BP_STORE_SUITE_SEP)) : NULL;
  if(*testbed && (!sep || *suite))
    return true;
  free(*testbed);
  free(*suite);
  *testbed = *suite = NULL;
  return false;
}

char *bpi_store_key(const char *const *parts, size_t n)
{
  struct bp_buf k;
  bpi_buf_init(&k);
  for(size_t i = 0; i < n; i++) {
    if(i)
      bpi_buf_addc(&k, '/');
    bpi_store_add_key_part(&k, parts[i]);
  }
  return finish(&k);   /* no parts: "", the store's root */
}

char *bpi_store_level_key(const char *const *names, size_t n,
                          const char *file)
{
  struct bp_buf k;
  bpi_buf_init(&k);
  for(size_t i = 0; i < n; i++) {
    bpi_store_add_key_part(&k, names[i]);
    bpi_buf_addc(&k, '/');
  }
  bpi_buf_adds(&k, file);
  return finish(&k);
}

/* {project}/{branch}/{commit}/{testbed}, the suite's part with the
 * testbed's */
static void add_run(struct bp_buf *k, const struct bp_store_run *r)
{
  const char *parts[] = {r->project, r->branch, r->commit};
  for(size_t i = 0; i < BP_ARRAY_LEN(parts); i++) {
    bpi_store_add_key_part(k, parts[i]);
    bpi_buf_addc(k, '/');
  }
  bpi_store_add_testbed_part(k, r->testbed, r->suite);
}

char *bpi_store_run_key(const struct bp_store_run *r)
{
  struct bp_buf k;
  bpi_buf_init(&k);
  add_run(&k, r);
  return finish(&k);
}

char *bpi_store_manifest_key(const struct bp_store_run *r)
{
  struct bp_buf k;
  bpi_buf_init(&k);
  add_run(&k, r);
  bpi_buf_addc(&k, '/');
  bpi_store_add_key_part(&k, BP_RUNDIR_MANIFEST);
  return finish(&k);
}

char *bpi_store_pointer_run_key(const char *project_part,
                                const char *branch_part, const char *commit,
                                const char *testbed_part)
{
  struct bp_buf k;
  bpi_buf_init(&k);
  bpi_buf_printf(&k, "%s/%s/", project_part, branch_part);
  bpi_store_add_key_part(&k, commit);
  bpi_buf_printf(&k, "/%s", testbed_part);
  return finish(&k);
}

/* {project}/{branch}/{commit}/{testbed}/ */
static void add_run_prefix(struct bp_buf *k, const struct bp_store_run *r)
{
  add_run(k, r);
  bpi_buf_addc(k, '/');
}

char *bpi_store_artifact_key(const struct bp_store_run *r,
                             const char *bench, const char *file)
{
  struct bp_buf k;
  bpi_buf_init(&k);
  add_run_prefix(&k, r);
  /* benchmarks and the run's own files share the testbed's level: a
   * benchmark named like one of those files gets its first byte escaped,
   * which decodes the same but is another key */
  size_t at = k.len;
  bpi_store_add_key_part(&k, bench);
  if(!bpi_buf_failed(&k) && k.len - at == strlen(BP_RUNDIR_MANIFEST) &&
     !memcmp(k.data + at, BP_RUNDIR_MANIFEST, k.len - at)) {
    k.len = at;
    add_pct(&k, (unsigned char)bench[0]);
    bpi_buf_adds(&k, bench + 1);
  }
  bpi_buf_addc(&k, '/');
  bpi_store_add_key_part(&k, file);
  return finish(&k);
}

char *bpi_store_run_artifact_key(const struct bp_store_run *r,
                                 const char *file)
{
  struct bp_buf k;
  bpi_buf_init(&k);
  add_run_prefix(&k, r);
  bpi_buf_adds(&k, BP_STORE_RUN_PART "/");
  bpi_store_add_key_part(&k, file);
  return finish(&k);
}

char *bpi_store_latest_file(const char *testbed, const char *suite)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_store_add_testbed_part(&b, testbed, suite);
  bpi_buf_adds(&b, ".json");
  return finish(&b);
}

char *bpi_store_latest_key(const char *project, const char *branch,
                           const char *testbed, const char *suite)
{
  const char *parts[] = {project, branch, BP_STORE_LATEST};
  struct bp_buf b;
  bpi_buf_init(&b);
  for(size_t i = 0; i < BP_ARRAY_LEN(parts); i++) {
    bpi_store_add_key_part(&b, parts[i]);
    bpi_buf_addc(&b, '/');
  }
  bpi_store_add_testbed_part(&b, testbed, suite);
  bpi_buf_adds(&b, ".json");
  return finish(&b);
}

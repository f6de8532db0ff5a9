/* storekey: the store's key scheme (see storekey.h). */
#include "bp_setup.h"
#include "storekey.h"
#include "buf.h"
#include "rundir.h"
#include "text.h"

#include <stdlib.h>
#include <string.h>

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

void bpi_store_add_key_part(struct bp_buf *b, const char *name)
{
  if(!name[0])
    bpi_buf_adds(b, "%00");   /* decodes back to "" (a name has no NUL) */
  else if(!strcmp(name, ".") || !strcmp(name, "..")) {
    for(const char *p = name; *p; p++)
      add_pct(b, (unsigned char)*p);
  }
  else {
    for(const unsigned char *p = (const unsigned char *)name; *p; p++) {
      if(bpi_store_key_char(*p))
        bpi_buf_addc(b, (char)*p);
      else
        add_pct(b, *p);
    }
  }
}

char *bpi_store_key_part(const char *name)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_store_add_key_part(&b, name);
  return finish(&b);
}

char *bpi_store_key_decode(const char *part)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  for(const char *p = part; *p; p++) {
    int hi, lo;
    if(*p == '%' && (hi = bpi_text_hex_value(p[1])) >= 0 &&
       (lo = bpi_text_hex_value(p[2])) >= 0) {
      if(hi || lo)   /* "%00" is the empty name, never a byte */
        bpi_buf_addc(&b, (char)(hi * 16 + lo));
      p += 2;
    }
    else
      bpi_buf_addc(&b, *p);
  }
  return finish(&b);
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

char *bpi_store_run_key(const struct bp_store_run *r)
{
  const char *parts[] = {r->project, r->branch, r->commit, r->testbed};
  return bpi_store_key(parts, BP_ARRAY_LEN(parts));
}

char *bpi_store_manifest_key(const struct bp_store_run *r)
{
  const char *parts[] = {r->project, r->branch, r->commit, r->testbed,
                         BP_RUNDIR_MANIFEST};
  return bpi_store_key(parts, BP_ARRAY_LEN(parts));
}

char *bpi_store_artifact_key(const struct bp_store_run *r,
                             const char *bench, const char *file)
{
  const char *parts[] = {r->project, r->branch, r->commit, r->testbed,
                         bench, file};
  return bpi_store_key(parts, BP_ARRAY_LEN(parts));
}

char *bpi_store_latest_file(const char *testbed)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_store_add_key_part(&b, testbed);
  bpi_buf_adds(&b, ".json");
  return finish(&b);
}

char *bpi_store_latest_key(const char *project, const char *branch,
                           const char *testbed)
{
  const char *parts[] = {project, branch, BP_STORE_LATEST};
  struct bp_buf b;
  bpi_buf_init(&b);
  for(size_t i = 0; i < BP_ARRAY_LEN(parts); i++) {
    bpi_store_add_key_part(&b, parts[i]);
    bpi_buf_addc(&b, '/');
  }
  bpi_store_add_key_part(&b, testbed);
  bpi_buf_adds(&b, ".json");
  return finish(&b);
}

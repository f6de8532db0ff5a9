/* fuzz_compare: run directories -> bpi_compare_dirs, then compare.json
 * and the pull request comment in memory (bpi_compare_json,
 * bpi_comment_markdown; nothing is written).  The input is split at NUL
 * bytes into manifest.json, report.json, base's profile.folded and head's
 * profile.folded; both directories share the manifest and the report.
 * The comment must keep the marker on its first line and no raw '<'
 * after it but the compared line's own, second (its values are checked
 * there). */
#include "bp_setup.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "comment.h"
#include "compare.h"
#include "fuzz.h"

static char root[64];

static void cleanup_root(void)
{
  static const char *const files[] = {"manifest.json", "report.json",
                                      "profile.folded"};
  char path[128];
  for(int side = 0; side < 2; side++) {
    for(size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
      snprintf(path, sizeof(path), "%s/%s/%s", root, side ? "head" : "base",
               files[i]);
      unlink(path);
    }
    snprintf(path, sizeof(path), "%s/%s", root, side ? "head" : "base");
    rmdir(path);
  }
  rmdir(root);
}

static void make_root(void)
{
  const char *dir = getenv("TMPDIR");
  snprintf(root, sizeof(root), "%s/fuzz_compare.XXXXXX",
           dir && dir[0] && strlen(dir) < 40 ? dir : "/tmp");
  char path[128];
  if(!mkdtemp(root))
    abort();
  for(int side = 0; side < 2; side++) {
    snprintf(path, sizeof(path), "%s/%s", root, side ? "head" : "base");
    if(mkdir(path, 0700))
      abort();
  }
  atexit(cleanup_root);
}

static void put(const char *side, const char *file, const uint8_t *data,
                size_t len)
{
  char path[128];
  snprintf(path, sizeof(path), "%s/%s/%s", root, side, file);
  FILE *f = fopen(path, "wb");
  if(!f || fwrite(data, 1, len, f) != len || fclose(f))
    abort();
}

/* The next NUL-terminated part of the input (or the rest). */
static size_t part(const uint8_t **data, size_t *size, const uint8_t **out)
{
  const uint8_t *nul = memchr(*data, '\0', *size);
  size_t len = nul ? (size_t)(nul - *data) : *size;
  *out = *data;
  *data += nul ? len + 1 : len;
  *size -= nul ? len + 1 : len;
  return len;
}

/* A '<' after the marker that is neither escaped ("\<") nor one of the
 * comment's own collapsible blocks: markup from the input. */
static bool stray_tag(const char *s)
{
  static const char *const ours[] = {"<details>", "</details>",
                                     "<summary>", "</summary>"};
  for(const char *p = strchr(s, '<'); p; p = strchr(p + 1, '<')) {
    bool ok = p > s && p[-1] == '\\';
    for(size_t i = 0; !ok && i < sizeof(ours) / sizeof(ours[0]); i++)
      ok = !strncmp(p, ours[i], strlen(ours[i]));
    if(!ok)
      return true;
  }
  return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if(!root[0])
    make_root();
  const uint8_t *p[4];
  size_t n[4];
  for(int i = 0; i < 4; i++)
    n[i] = part(&data, &size, &p[i]);
  for(int side = 0; side < 2; side++) {
    const char *s = side ? "head" : "base";
    put(s, "manifest.json", p[0], n[0]);
    put(s, "report.json", p[1], n[1]);
    put(s, "profile.folded", p[2 + side], n[2 + side]);
  }
  char base[96], head[96];
  snprintf(base, sizeof(base), "%s/base", root);
  snprintf(head, sizeof(head), "%s/head", root);
  struct bp_cmp_opts o = {0};
  struct bp_cmp *c = NULL;
  struct bp_err err = {0};
  if(bpi_compare_dirs(base, head, &o, &c, &err)) {
    if(c || !err.msg[0])
      abort();
    return 0;
  }
  struct bp_buf json, md;
  bpi_buf_init(&json);
  bpi_buf_init(&md);
  bpi_compare_json(c, &json);
  struct bp_comment_opts co = {0};
  struct bp_err merr = {0};
  if(!bpi_comment_markdown(c, &co, &md, &merr) && md.data) {
    const char *nl = strchr(md.data, '\n');
    const char *line = nl ? nl + 1 : NULL;
    if(line && !strncmp(line, BP_COMMENT_COMPARED_PREFIX,
                        strlen(BP_COMMENT_COMPARED_PREFIX))) {
      /* the compared line: one line, closed at its end only */
      nl = strchr(line, '\n');
      size_t n = nl ? (size_t)(nl - line) : 0;
      if(n < 8 || strncmp(nl - 4, " -->", 4) || memchr(line + 1, '<', n - 1) ||
         memmem(line + 4, n - 8, "--", 2) || memchr(line, '>', n - 1))
        abort();
    }
    if(strncmp(md.data, "<!-- benchprof:comment ", 23) ||
       (nl && stray_tag(nl)))
      abort();
  }
  bpi_buf_cleanup(&md);
  bpi_buf_cleanup(&json);
  bpi_compare_free(c);
  return 0;
}

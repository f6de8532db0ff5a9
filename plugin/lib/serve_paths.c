/* serve_paths: the store as the viewer maps it between URLs and files:
 * key parts shown decoded and escaped into links, a request's URL split
 * into decoded segments checked to stay under the root, directories
 * listed (temporary files and links leading out hidden). */
#include "bp_setup.h"
#include "serve_int.h"
#include "serve_mhd.h"

#include "buf.h"
#include "err.h"
#include "rundir.h"
#include "storekey.h"
#include "text.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* ------------------------------------------------------------ names */

/* The display name of a key part (store.h: reversible percent-encoding);
 * a testbed's part with a suite's (storekey.h) shows as "TESTBED
 * (SUITE)"; malloc'd. */
char *bpi_serve_display_name(const char *part)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  const char *sep = strstr(part, BP_STORE_SUITE_SEP);
  bpi_text_pct_decode(&b, part, sep ? (size_t)(sep - part) : strlen(part),
                      false);
  if(sep) {
    const char *suite = sep + strlen(BP_STORE_SUITE_SEP);
    bpi_buf_adds(&b, " (");
    bpi_text_pct_decode(&b, suite, strlen(suite), false);
    bpi_buf_addc(&b, ')');
  }
  bpi_buf_addc(&b, '\0');
  if(bpi_buf_failed(&b) || memchr(b.data, '\0', b.len - 1)) {
    /* a NUL cannot be shown: show the part as stored */
    bpi_buf_cleanup(&b);
    return strdup(part);
  }
  return b.data;
}

/* Append "/" + each '/'-separated part of a store key URL-escaped + "/". */
void bpi_serve_add_key_href(struct bp_buf *b, const char *key)
{
  bpi_buf_addc(b, '/');
  bpi_text_pct_encode(b, key, "/");
  bpi_buf_addc(b, '/');
}

char *bpi_serve_profiler_url(const char *url)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_buf_adds(&b, PROFILER_FROM_URL);
  bpi_text_pct_encode(&b, url, NULL);
  bpi_buf_adds(&b, "/");
  bpi_buf_addc(&b, '\0');
  if(bpi_buf_failed(&b)) {
    bpi_buf_cleanup(&b);
    return NULL;
  }
  return b.data;
}

/* "/" + each part escaped + "/" between them (+ "/" when dir). */
void bpi_serve_add_path(struct bp_buf *b, char *const *parts, size_t n,
                        bool dir)
{
  for(size_t i = 0; i < n; i++) {
    bpi_buf_addc(b, '/');
    bpi_text_pct_encode(b, parts[i], NULL);
  }
  if(dir || !n)
    bpi_buf_addc(b, '/');
}

/* A name that a listing hides: a temporary file of an atomic write in
 * progress (fileio.c: NAME.tmpXXXXXX). */
static bool is_temp_name(const char *name)
{
  size_t len = strlen(name);
  return len > 10 && !memcmp(name + len - 10, ".tmp", 4);
}

/* ------------------------------------------------------------ paths */

/* path resolved (symlinks followed) lies under the root; *st its stat.
 * On false, *status says what to answer. */
bool bpi_serve_inside_root(const struct bp_serve *sv, const char *path,
                           struct stat *st, char **real, int *status)
{
  char *r = realpath(path, NULL);
  *real = NULL;
  if(!r) {
    *status = errno == EACCES ? MHD_HTTP_FORBIDDEN : MHD_HTTP_NOT_FOUND;
    return false;
  }
  if(strncmp(r, sv->root, sv->root_len) ||
     (r[sv->root_len] != '/' && r[sv->root_len] != '\0' &&
      strcmp(sv->root, "/"))) {
    free(r);
    *status = MHD_HTTP_FORBIDDEN;
    return false;
  }
  if(stat(r, st)) {
    free(r);
    *status = MHD_HTTP_NOT_FOUND;
    return false;
  }
  *real = r;
  return true;
}

/* Free what parse_target made; safe to call twice. */
void bpi_serve_target_cleanup(struct target *t)
{
  for(size_t i = 0; i < t->n; i++)
    free(t->parts[i]);
  free(t->path);
  t->n = 0;
  t->path = NULL;
}

/* Split and decode url (as received, still percent-encoded).  Refuses
 * what could name something outside the root: dot segments however
 * encoded, empty segments ("//"), a decoded '/' or NUL. Returns 0 or the
 * HTTP status to answer (t then holds nothing).  t is always set: call
 * target_cleanup either way. */
int bpi_serve_parse_target(const struct bp_serve *sv, const char *url,
                           struct target *t)
{
  struct bp_buf b;
  int status = 0;
  memset(t, 0, sizeof(*t));
  if(url[0] != '/')
    return MHD_HTTP_BAD_REQUEST;
  bpi_buf_init(&b);
  for(const char *s = url + 1; *s && !status;) {
    size_t len = strcspn(s, "/");
    if(!len)
      status = MHD_HTTP_NOT_FOUND;   /* "//": no empty key part */
    else if(t->n == MAX_SEGMENTS)
      status = MHD_HTTP_NOT_FOUND;
    else {
      bpi_buf_reset(&b);
      if(!bpi_text_pct_decode(&b, s, len, true))
        status = MHD_HTTP_BAD_REQUEST;
      else if(bpi_buf_failed(&b))
        status = MHD_HTTP_INTERNAL_SERVER_ERROR;
      else if(memchr(b.data, '\0', b.len) || memchr(b.data, '/', b.len))
        status = MHD_HTTP_NOT_FOUND;
      else if((b.len == 1 && b.data[0] == '.') ||
              (b.len == 2 && !memcmp(b.data, "..", 2)))
        status = MHD_HTTP_FORBIDDEN;
      else {
        t->parts[t->n] = strndup(b.data, b.len);
        if(!t->parts[t->n])
          status = MHD_HTTP_INTERNAL_SERVER_ERROR;
        else
          t->n++;
      }
    }
    s += len;
    if(*s == '/') {
      s++;
      t->slash = !*s;
    }
  }
  if(!status) {
    bpi_buf_reset(&b);
    bpi_buf_adds(&b, sv->root);
    for(size_t i = 0; i < t->n; i++) {
      bpi_buf_addc(&b, '/');
      bpi_buf_adds(&b, t->parts[i]);
    }
    bpi_buf_addc(&b, '\0');
    if(bpi_buf_failed(&b) || !(t->path = strdup(b.data)))
      status = MHD_HTTP_INTERNAL_SERVER_ERROR;
  }
  bpi_buf_cleanup(&b);
  if(status)
    bpi_serve_target_cleanup(t);
  return status;
}

/* ------------------------------------------------------------ listings */

void bpi_serve_listing_cleanup(struct listing *l)
{
  for(size_t i = 0; i < l->n; i++)
    free(l->e[i].name);
  free(l->e);
  l->e = NULL;
  l->n = 0;
}

static int entry_by_name(const void *a, const void *b)
{
  return strcmp(((const struct entry *)a)->name,
                ((const struct entry *)b)->name);
}

/* a + b, malloc'd */
char *bpi_serve_concat(const char *a, const char *b)
{
  size_t al = strlen(a), bl = strlen(b);
  char *p = malloc(al + bl + 1);
  if(p) {
    memcpy(p, a, al);
    memcpy(p + al, b, bl + 1);
  }
  return p;
}

/* The entries of dir (real, under the root) that stay under the root,
 * sorted by name; hidden: "." and "..", temporary files, symlinks that
 * lead out. */
bp_code bpi_serve_list_dir(const struct bp_serve *sv, const char *dir,
                           struct listing *l, struct bp_err *err)
{
  DIR *d = opendir(dir);
  struct dirent *de;
  size_t cap = 0;
  memset(l, 0, sizeof(*l));
  if(!d)
    return bpi_err_set(err, BPE_IO, errno, "cannot list '%s'", dir);
  while((de = readdir(d)) && l->n < MAX_ENTRIES) {
    struct stat st;
    char *path, *real = NULL;
    int status;
    if(!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
       is_temp_name(de->d_name))
      continue;
    path = bpi_text_path_join(dir, de->d_name);
    if(!path)
      break;
    bool ok = bpi_serve_inside_root(sv, path, &st, &real, &status) &&
      (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode));
    free(path);
    free(real);
    if(!ok)
      continue;
    if(l->n == cap) {
      size_t ncap = cap ? 2 * cap : 16;
      struct entry *ne = realloc(l->e, ncap * sizeof(*ne));
      if(!ne)
        break;
      l->e = ne;
      cap = ncap;
    }
    l->e[l->n].name = strdup(de->d_name);
    if(!l->e[l->n].name)
      break;
    l->e[l->n].dir = S_ISDIR(st.st_mode);
    l->e[l->n].size = (long long)st.st_size;
    l->e[l->n].mtime = st.st_mtime;
    l->e[l->n].hidden = false;
    l->n++;
  }
  bool broken = de != NULL && l->n < MAX_ENTRIES;
  closedir(d);
  if(broken) {
    bpi_serve_listing_cleanup(l);
    return bpi_err_set(err, BPE_NOMEM, 0, "listing '%s'", dir);
  }
  if(l->n)
    qsort(l->e, l->n, sizeof(*l->e), entry_by_name);
  return BP_OK;
}

/* When a commit was stored: its newest testbed manifest's mtime (the
 * directory's own when it has none). */
time_t bpi_serve_commit_time(const struct bp_serve *sv, const char *dir,
                             time_t fallback)
{
  struct listing l;
  struct bp_err err = {0};
  time_t t = 0;
  if(bpi_serve_list_dir(sv, dir, &l, &err))
    return fallback;
  for(size_t i = 0; i < l.n; i++) {
    char *tb = l.e[i].dir ? bpi_text_path_join(dir, l.e[i].name) : NULL;
    char *mf = tb ? bpi_text_path_join(tb, BP_RUNDIR_MANIFEST) : NULL;
    struct stat st;
    if(mf && !stat(mf, &st) && st.st_mtime > t)
      t = st.st_mtime;
    free(mf);
    free(tb);
  }
  bpi_serve_listing_cleanup(&l);
  return t ? t : fallback;
}


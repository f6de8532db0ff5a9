/* serve_links: the links `benchprof serve` prints when it starts, one per
 * branch's latest run of each benchmark with a Firefox profile: its page
 * on this server and the profile in the Firefox Profiler (see serve.h). */
#include "bp_setup.h"
#include "serve_int.h"

#include "buf.h"
#include "err.h"
#include "fileio.h"
#include "text.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct links {
  struct bp_serve_link *v;
  size_t n, cap;
};

static void link_free(struct bp_serve_link *k)
{
  free(k->project);
  free(k->branch);
  free(k->testbed);
  free(k->benchmark);
  free(k->page);
  free(k->profile);
  free(k->profiler);
}

void bpi_serve_links_free(struct bp_serve_link *links, size_t n)
{
  for(size_t i = 0; i < n; i++)
    link_free(&links[i]);
  free(links);
}

/* One link per benchmark with a profile under the testbed directory key
 * (parts joined by '/', checked like a request's path). */
static bp_code add_testbed_links(const struct bp_serve *sv, struct links *ls,
                                 const char *key, struct bp_err *err)
{
  struct target t;
  struct stat st;
  struct listing l;
  char *real = NULL;
  int status;
  bp_code rc = BP_OK;
  struct bp_buf url;
  bpi_buf_init(&url);
  bpi_serve_add_key_href(&url, key);
  bpi_buf_addc(&url, '\0');
  if(bpi_buf_failed(&url)) {
    bpi_buf_cleanup(&url);
    return bpi_err_set(err, BPE_NOMEM, 0, "links");
  }
  status = bpi_serve_parse_target(sv, url.data, &t);
  bpi_buf_cleanup(&url);
  if(status || t.n != LEVEL_TESTBED ||
     !bpi_serve_inside_root(sv, t.path, &st, &real, &status) ||
     !S_ISDIR(st.st_mode)) {
    /* a pointer to nothing (not stored yet, or hostile): no link */
    free(real);
    bpi_serve_target_cleanup(&t);
    return BP_OK;
  }
  rc = bpi_serve_list_dir(sv, real, &l, err);
  for(size_t i = 0; !rc && i < l.n; i++) {
    char *bdir = l.e[i].dir ? bpi_text_path_join(real, l.e[i].name) : NULL;
    char *prof = bdir ? bpi_text_path_join(bdir, PROFILE_FILE) : NULL;
    bool has = prof && !stat(prof, &st) && S_ISREG(st.st_mode);
    free(prof);
    free(bdir);
    if(!has)
      continue;
    if(ls->n == ls->cap) {
      size_t ncap = ls->cap ? 2 * ls->cap : 8;
      struct bp_serve_link *nv = realloc(ls->v, ncap * sizeof(*nv));
      if(!nv) {
        rc = bpi_err_set(err, BPE_NOMEM, 0, "links");
        break;
      }
      ls->v = nv;
      ls->cap = ncap;
    }
    struct bp_serve_link *k = &ls->v[ls->n];
    struct bp_buf b;
    memset(k, 0, sizeof(*k));
    k->project = bpi_serve_display_name(t.parts[PART_PROJECT]);
    k->branch = bpi_serve_display_name(t.parts[PART_BRANCH]);
    k->testbed = bpi_serve_display_name(t.parts[PART_TESTBED]);
    k->benchmark = bpi_serve_display_name(l.e[i].name);
    bpi_buf_init(&b);
    bpi_buf_add(&b, sv->base, strlen(sv->base) - 1);
    bpi_serve_add_path(&b, t.parts, t.n, true);
    bpi_text_pct_encode(&b, l.e[i].name, NULL);
    bpi_buf_addc(&b, '/');
    bpi_buf_addc(&b, '\0');
    if(!bpi_buf_failed(&b))
      k->page = strdup(b.data);
    b.len--;
    bpi_buf_adds(&b, PROFILE_FILE);
    bpi_buf_addc(&b, '\0');
    if(!bpi_buf_failed(&b))
      k->profile = strdup(b.data);
    bpi_buf_cleanup(&b);
    k->profiler = k->profile ? bpi_serve_profiler_url(k->profile) : NULL;
    ls->n++;
    if(!k->project || !k->branch || !k->testbed || !k->benchmark ||
       !k->page || !k->profile || !k->profiler)
      rc = bpi_err_set(err, BPE_NOMEM, 0, "links");
  }
  bpi_serve_listing_cleanup(&l);
  free(real);
  bpi_serve_target_cleanup(&t);
  return rc;
}

/* Every {project}/{branch}/latest/{testbed}.json under the root. */
static bp_code walk_latest(const struct bp_serve *sv, struct links *ls,
                           struct bp_err *err)
{
  struct listing projects;
  bp_code rc = bpi_serve_list_dir(sv, sv->root, &projects, err);
  for(size_t p = 0; !rc && p < projects.n; p++) {
    struct listing branches = {0};
    char *pdir = projects.e[p].dir
                   ? bpi_text_path_join(sv->root, projects.e[p].name)
                                   : NULL;
    if(pdir)
      rc = bpi_serve_list_dir(sv, pdir, &branches, err);
    for(size_t b = 0; !rc && b < branches.n; b++) {
      struct listing pointers = {0};
      char *bdir = branches.e[b].dir
                     ? bpi_text_path_join(pdir, branches.e[b].name)
                                     : NULL;
      char *ldir = bdir ? bpi_text_path_join(bdir, LATEST_DIR) : NULL;
      struct stat st;
      if(ldir && !stat(ldir, &st) && S_ISDIR(st.st_mode))
        rc = bpi_serve_list_dir(sv, ldir, &pointers, err);
      for(size_t i = 0; !rc && i < pointers.n; i++) {
        const char *name = pointers.e[i].name;
        size_t nl = strlen(name);
        char *file, *text = NULL, *testbed, *key = NULL;
        size_t len = 0;
        struct bp_err ignored = {0};
        cJSON *ptr = NULL;
        if(pointers.e[i].dir || nl <= 5 || strcmp(name + nl - 5, ".json"))
          continue;
        file = bpi_text_path_join(ldir, name);
        testbed = strndup(name, nl - 5);
        if(file && testbed && !bpi_file_read(file, &text, &len, &ignored))
          ptr = cJSON_ParseWithLength(text, len);
        if(ptr)
          key = bpi_serve_pointer_dir(ptr, projects.e[p].name,
                                      branches.e[b].name,
                                      testbed);
        if(key)
          rc = add_testbed_links(sv, ls, key, err);
        free(key);
        cJSON_Delete(ptr);
        free(text);
        free(testbed);
        free(file);
      }
      bpi_serve_listing_cleanup(&pointers);
      free(ldir);
      free(bdir);
    }
    bpi_serve_listing_cleanup(&branches);
    free(pdir);
  }
  bpi_serve_listing_cleanup(&projects);
  return rc;
}

static int link_order(const void *a, const void *b)
{
  const struct bp_serve_link *x = a, *y = b;
  int d = strcmp(x->project, y->project);
  if(!d)
    d = strcmp(x->branch, y->branch);
  if(!d)
    d = strcmp(x->testbed, y->testbed);
  if(!d)
    d = strcmp(x->benchmark, y->benchmark);
  return d;
}

bp_code bpi_serve_latest_links(const struct bp_serve *sv,
                               struct bp_serve_link **links, size_t *n,
                               struct bp_err *err)
{
  struct links ls = {0};
  bp_code rc = walk_latest(sv, &ls, err);
  *links = NULL;
  *n = 0;
  if(rc) {
    bpi_serve_links_free(ls.v, ls.n);
    return rc;
  }
  if(ls.n)
    qsort(ls.v, ls.n, sizeof(*ls.v), link_order);
  *links = ls.v;
  *n = ls.n;
  return BP_OK;
}

/* benchprof run, on a pull request: after publishing, find the base's run
 * in the store (the base commit's manifest, else the base branch's latest
 * for the same testbed), compare per benchmark and write OUTPUT/compare/
 * (compare.json, comment.md, the differential flame graphs).  Each side
 * is fetched from the store into OUTPUT/compare/.sides/ so that its
 * artifacts' public URLs are known for the comment's links; the head is
 * the run directory itself when its publication is still spooled.  The
 * differential flame graphs are stored next to the head's artifacts
 * ({...}/{benchmark}/diff.svg) so that the comment can link them.  No
 * base: comment.md says so, and why.  Nothing here changes the exit
 * status, except a failure under --strict. */
#include "bp_setup.h"
#include "cli.h"
#include "msgs.h"

#include "buf.h"
#include "ci.h"
#include "comment.h"
#include "compare.h"
#include "config.h"
#include "err.h"
#include "fileio.h"
#include "store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#define COMPARE_DIR "compare"
#define COMMENT_IDENTITY "identity.json"

struct run_cmp {
  const char *dir;          /* the run directory */
  struct bp_buf out;        /* dir/compare */
  struct bp_ident id;
  struct bp_store *st;
  char *base_branch;        /* the base found */
  char *base_hash;          /* the base commit, when its run was found */
  const struct bp_config *cfg; /* comment.threshold, .max_functions; or NULL */
};

/* dir/compare/.sides/name */
static char *side_dir(const struct run_cmp *r, const char *name)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_buf_printf(&b, "%s/.sides/%s", r->out.data, name);
  if(bpi_buf_failed(&b)) {
    bpi_buf_cleanup(&b);
    return NULL;
  }
  return b.data;
}

/* Whether the run directory's publication was delivered (publish.c notes
 * its state in the run's manifest.json). */
static bool delivered(const char *dir)
{
  struct bp_buf path;
  struct bp_err ignored = {0};
  char *text = NULL;
  bpi_buf_init(&path);
  bpi_buf_printf(&path, "%s/manifest.json", dir);
  bool yes = false;
  if(!bpi_buf_failed(&path) &&
     !bpi_file_read(path.data, &text, NULL, &ignored)) {
    cJSON *m = cJSON_Parse(text);
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(m, "publication");
    const cJSON *state = cJSON_GetObjectItemCaseSensitive(p, "state");
    yes = cJSON_IsString(state) && !strcmp(state->valuestring, "delivered");
    cJSON_Delete(m);
  }
  free(text);
  bpi_buf_cleanup(&path);
  return yes;
}

/* The base side: its commit's run, else its branch's latest.  NULL and
 * why (both attempts) when neither is in the store. */
static char *find_base(struct run_cmp *r, struct bp_buf *why)
{
  struct bp_err err = {0};
  char *key = NULL, *dir = NULL;
  bp_code rc = BPE_NOT_FOUND;
  const struct bp_ident *id = &r->id;
  if(id->base_hash) {
    rc = bpi_compare_locate(r->st, id->project, id->base_branch,
                            id->base_hash, id->testbed, &key, &err);
    if(rc)
      bpi_buf_printf(why, "%s; ", err.msg);
    else
      r->base_hash = strdup(id->base_hash);
  }
  else
    bpi_buf_adds(why, "the base commit is unknown; ");
  if(rc) {
    err = (struct bp_err){0};
    rc = bpi_compare_locate(r->st, id->project, id->base_branch, NULL,
                            id->testbed, &key, &err);
    if(rc)
      bpi_buf_adds(why, err.msg);
    else if(id->base_hash)
      bp_msg_note("compare: the base commit %.12s has no run; comparing "
                  "with %s's latest instead", id->base_hash,
                  id->base_branch);
  }
  if(!rc) {
    err = (struct bp_err){0};
    dir = side_dir(r, "base");
    rc = dir ? bpi_compare_fetch(r->st, key, dir, &err) : BPE_NOMEM;
    if(rc) {
      bpi_buf_printf(why, "fetching %s failed: %s", key,
                     err.msg[0] ? err.msg : bp_strerror(rc));
      free(dir);
      dir = NULL;
    }
  }
  if(dir)
    r->base_branch = strdup(id->base_branch);
  free(key);
  return dir;
}

/* The head side: the published run when it reached the store, else the
 * run directory (no public URLs then). */
static char *find_head(struct run_cmp *r)
{
  struct bp_err err = {0};
  char *key = NULL, *dir = NULL;
  if(r->id.hash && delivered(r->dir) &&
     !bpi_compare_locate(r->st, r->id.project, r->id.branch, r->id.hash,
                         r->id.testbed, &key, &err)) {
    dir = side_dir(r, "head");
    if(dir && bpi_compare_fetch(r->st, key, dir, &err)) {
      bp_msg_warn("compare: %s (comparing the run directory instead, "
                  "without links)", err.msg);
      free(dir);
      dir = NULL;
    }
  }
  free(key);
  return dir ? dir : strdup(r->dir);
}

/* A run directory has no identity of its own: the run's. */
static bool fill(char **field, const char *value)
{
  if(*field || !value)
    return true;
  return (*field = strdup(value)) != NULL;
}

static bool fill_identity(struct bp_cmp *c, const struct run_cmp *r)
{
  return fill(&c->head.project, r->id.project) &&
         fill(&c->head.branch, r->id.branch) &&
         fill(&c->head.hash, r->id.hash) &&
         fill(&c->head.testbed, r->id.testbed) &&
         fill(&c->base.project, r->id.project) &&
         fill(&c->base.branch, r->base_branch) &&
         fill(&c->base.testbed, r->id.testbed);
}

/* Store each benchmark's diff.svg next to the head's artifacts, keyed as
 * publish.c keys them: {project}/{branch}/{commit}/{testbed}/{bench}/,
 * bench being its profile directory, or its name when that is ".". */
static void store_diffs(struct bp_cmp *c, const struct run_cmp *r)
{
  struct bp_err err = {0};
  for(size_t i = 0; i < c->nbenches; i++) {
    struct bp_cmp_bench *b = &c->benches[i];
    if(b->presence != BP_CMP_BOTH || !b->head.dir)
      continue;
    const char *sub = strcmp(b->head.dir, ".") ? b->head.dir : b->name;
    const char *parts[] = {r->id.project, r->id.branch, r->id.hash,
                           r->id.testbed, sub, "diff.svg"};
    struct bp_buf key, path;
    bpi_buf_init(&key);
    bpi_buf_init(&path);
    for(size_t k = 0; k < BP_ARRAY_LEN(parts); k++) {
      char *part = bpi_store_key_part(parts[k]);
      bpi_buf_printf(&key, "%s%s", k ? "/" : "", part ? part : "");
      if(!part)
        key.failed = true;
      free(part);
    }
    bpi_buf_printf(&path, "%s/%s/diff.svg", r->out.data, b->dir);
    bp_code rc = bpi_buf_failed(&key) || bpi_buf_failed(&path) ? BPE_NOMEM
      : bpi_store_put_file(r->st, key.data, path.data, "image/svg+xml",
                           NULL, &err);
    if(rc)
      bp_msg_warn("compare: storing %s's diff.svg failed: %s", b->name,
                  err.msg[0] ? err.msg : bp_strerror(rc));
    else
      b->diff_url = bpi_store_public_url(r->st, key.data);
    bpi_buf_cleanup(&key);
    bpi_buf_cleanup(&path);
  }
}

/* dir/compare/name holding text (NULL: out of memory). */
static bp_code write_out(const struct run_cmp *r, const char *name,
                         const struct bp_buf *text, struct bp_err *err)
{
  struct bp_buf path;
  bpi_buf_init(&path);
  bpi_buf_printf(&path, "%s/%s", r->out.data, name);
  bp_code rc = bpi_buf_failed(&path) || bpi_buf_failed(text)
    ? bpi_err_set(err, BPE_NOMEM, 0, "%s", name)
    : bpi_file_write(path.data, text->data ? text->data : "", text->len,
                     false, err);
  bpi_buf_cleanup(&path);
  return rc;
}

/* comment.md, and beside it identity.json: the run's identity as
 * `benchprof ci --json` prints it, so that a runner's completed hook
 * posts the comment only on the pull request and commit it was written
 * for (an output directory kept between jobs still holds the last
 * job's).  The identity first: a comment.md is never newer than its
 * identity. */
static bp_code write_comment(const struct run_cmp *r, const struct bp_buf *md,
                             struct bp_err *err)
{
  struct bp_buf ident;
  bpi_buf_init(&ident);
  bpi_ident_json(&r->id, &ident);
  bp_code rc = bpi_file_mkdirs(r->out.data, err);
  if(!rc)
    rc = write_out(r, COMMENT_IDENTITY, &ident, err);
  if(!rc)
    rc = write_out(r, "comment.md", md, err);
  bpi_buf_cleanup(&ident);
  return rc;
}

static bp_code no_base(const struct run_cmp *r, const char *why,
                       struct bp_err *err)
{
  struct bp_comment_opts co = {.project = r->id.project,
                               .testbed = r->id.testbed};
  struct bp_cmp_side head = {.project = r->id.project,
                             .branch = r->id.branch, .hash = r->id.hash,
                             .testbed = r->id.testbed};
  struct bp_buf md;
  bpi_buf_init(&md);
  bp_code rc = bpi_comment_no_base(&co, &head, r->id.base_branch, why, &md,
                                   err);
  if(!rc)
    rc = write_comment(r, &md, err);
  bpi_buf_cleanup(&md);
  if(!rc) {
    bp_msg_warn("compare: no base to compare with: %s", why);
    bp_msg_note("compare: the comment (saying so) is %s/comment.md",
                r->out.data);
  }
  return rc;
}

static void say(const struct bp_cmp *c, const struct run_cmp *r)
{
  bp_msg_note("compare with %s (%.12s): %zu regression%s, %zu "
              "improvement%s, %zu unchanged, %zu new, %zu removed",
              r->base_branch, c->base.hash ? c->base.hash : "?",
              c->nregressions, c->nregressions == 1 ? "" : "s",
              c->nimprovements, c->nimprovements == 1 ? "" : "s",
              c->nunchanged, c->nnew, c->nremoved);
  for(size_t i = 0; i < c->nbenches; i++) {
    const struct bp_cmp_bench *b = &c->benches[i];
    if(b->presence != BP_CMP_BOTH || !b->flag || !b->max_slug)
      continue;
    const struct bp_cmp_func *top = bpi_compare_top_func(
      b, b->flag == BP_CMP_REGRESSION);
    bp_msg_note("  %s: %s %+.2f%% (%s); function that %s most: %s",
                b->name, b->max_slug, b->max_pct,
                b->flag == BP_CMP_REGRESSION ? "regression" : "improvement",
                b->flag == BP_CMP_REGRESSION ? "grew" : "shrank",
                top ? top->name : "-");
  }
  bp_msg_note("compare: %s/comment.md (post it with 'benchprof comment "
              "--markdown %s/comment.md')", r->out.data, r->out.data);
}

/* The base is the base branch's latest run, not the base commit's. */
static void latest_note(struct bp_buf *md, const struct run_cmp *r)
{
  bpi_buf_adds(md, "\n_The base commit ");
  if(r->id.base_hash)
    bpi_buf_printf(md, "`%.7s` ", r->id.base_hash);
  bpi_buf_adds(md, "has no run in the store: compared with the latest run "
               "of ");
  bpi_comment_md_text(md, r->base_branch, BP_COMMENT_NAME_CHARS);
  bpi_buf_adds(md, " instead._\n");
}

static bp_code compare(struct run_cmp *r, struct bp_err *err)
{
  struct bp_buf why, md;
  struct bp_cmp *c = NULL;
  struct bp_cmp_opts o = {.threshold_pct = r->cfg ? r->cfg->comment.threshold
                                                  : 0};
  bpi_buf_init(&why);
  bpi_buf_init(&md);
  char *base = find_base(r, &why);
  char *head = base ? find_head(r) : NULL;
  bp_code rc = BP_OK;
  if(!base)
    rc = no_base(r, bpi_buf_failed(&why) || !why.data ? "out of memory"
                                                       : why.data, err);
  else if(!head)
    rc = bpi_err_set(err, BPE_NOMEM, 0, "compare");
  else {
    rc = bpi_compare_dirs(base, head, &o, &c, err);
    if(!rc && !fill_identity(c, r))
      rc = bpi_err_set(err, BPE_NOMEM, 0, "compare");
    if(!rc)
      rc = bpi_compare_write(c, r->out.data, err);
    if(!rc && r->id.hash && delivered(r->dir))
      store_diffs(c, r);
    /* room for the note below */
    struct bp_comment_opts co = {.project = r->id.project,
                                 .testbed = r->id.testbed,
                                 .max_chars = BP_COMMENT_MAX_CHARS - 512};
    if(r->cfg)
      co.max_functions = r->cfg->comment.max_functions;
    if(!rc)
      rc = bpi_comment_markdown(c, &co, &md, err);
    if(!rc && !r->base_hash)
      latest_note(&md, r);
    if(!rc)
      rc = write_comment(r, &md, err);
    if(!rc)
      say(c, r);
  }
  bpi_compare_free(c);
  free(base);
  free(head);
  bpi_buf_cleanup(&md);
  bpi_buf_cleanup(&why);
  return rc;
}

int bp_cli_run_compare(const struct bp_cli_publish *p, const char *dir,
                       int status)
{
  struct run_cmp r = {.dir = dir, .cfg = p->config};
  struct bp_err err = {0};
  bool failed = false;
  if(!p->enabled)
    return status;
  bpi_buf_init(&r.out);
  if(!bp_cli_publish_store(p, &r.id, &r.st))
    failed = true;
  else if(r.id.base_branch) {
    bpi_buf_printf(&r.out, "%s/" COMPARE_DIR, dir);
    bp_code rc = bpi_buf_failed(&r.out) ? BPE_NOMEM : compare(&r, &err);
    if(rc) {
      bp_msg_err(&err, rc);
      failed = true;
    }
  }
  if(failed)
    bp_msg_warn("compare: no comparison with the base");
  bpi_store_close(r.st);
  bpi_ident_cleanup(&r.id);
  free(r.base_branch);
  free(r.base_hash);
  bpi_buf_cleanup(&r.out);
  return failed && p->strict && status == 0 ? BP_EXIT_ERROR : status;
}

/* compare_pr: the pull request comparison (see compare_pr.h). */
#include "bp_setup.h"
#include "compare_pr.h"
#include "buf.h"
#include "err.h"
#include "fileio.h"
#include "http.h"
#include "rundir.h"
#include "site.h"
#include "storekey.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include <unistd.h>

#include <cjson/cJSON.h>

void bpi_pr_result_cleanup(struct bp_pr_result *r)
{
  bpi_compare_free(r->cmp);
  free(r->base_key);
  free(r->head_key);
  free(r->no_base);
  free(r->base_unread);
  free(r->suite_hint);
  free(r->head_fallback);
  memset(r, 0, sizeof(*r));
}

/* OUT/.sides/name, malloc'd. */
static char *side_dir(const struct bp_pr_opts *o, const char *name)
{
  char *sides = bpi_text_path_join(o->out, BP_RUNDIR_SIDES);
  char *dir = sides ? bpi_text_path_join(sides, name) : NULL;
  free(sides);
  return dir;
}

/* The stored manifest of a side: its commit's, else (latest_fallback)
 * its branch's latest; *latest says which.  why gets both failures.
 * Only a commit that has no run falls back: one the store could not
 * answer for may have one, and the latest would be the wrong base. */
static bp_code locate(const struct bp_pr_opts *o, const struct bp_pr_side *s,
                      const char *repository, char **key, bool *latest,
                      struct bp_buf *why, struct bp_err *err)
{
  bp_code rc = BPE_NOT_FOUND;
  struct bp_err e = {0};
  *latest = !s->commit;
  if(!o->st)
    return bpi_err_set(err, BPE_INVAL, 0, "compare: no store to find "
                       "branch '%s' in", s->branch);
  rc = bpi_compare_locate(o->st, o->project, s->branch, s->commit,
                          o->testbed, o->suite, repository, key, &e);
  if(rc == BPE_NOT_FOUND && s->commit && s->latest_fallback) {
    bpi_buf_printf(why, "%s; ", e.msg);
    e = (struct bp_err){0};
    *latest = true;
    rc = bpi_compare_locate(o->st, o->project, s->branch, NULL, o->testbed,
                            o->suite, repository, key, &e);
  }
  if(rc) {
    bpi_buf_adds(why, e.msg);
    bpi_err_copy(err, rc, &e);
  }
  return rc;
}

/* A side as a run directory (*dir malloc'd): itself, or fetched; from
 * the store only when it is repository's (NULL: any). */
static bp_code open_side(const struct bp_pr_opts *o,
                         const struct bp_pr_side *s, const char *name,
                         const char *repository, char **dir, char **key,
                         bool *latest, struct bp_buf *why,
                         struct bp_err *err)
{
  *dir = NULL;
  if(s->dir) {
    *dir = strdup(s->dir);
    return *dir ? BP_OK : bpi_err_set(err, BPE_NOMEM, 0, "compare");
  }
  bp_code rc = locate(o, s, repository, key, latest, why, err);
  char *d = rc ? NULL : side_dir(o, name);
  if(!rc && !d)
    rc = bpi_err_set(err, BPE_NOMEM, 0, "compare");
  if(!rc) {
    struct bp_err e = {0};
    rc = bpi_compare_fetch(o->st, *key, repository, d, &e);
    if(rc == BPE_CONFIG)  /* another repository's: said as it is */
      bpi_buf_adds(why, e.msg);
    else if(rc)
      bpi_buf_printf(why, "fetching %s failed: %s", *key,
                     e.msg[0] ? e.msg : bp_strerror(rc));
    if(rc)
      bpi_err_copy(err, rc, &e);
  }
  if(rc) {
    free(d);
    free(*key);
    *key = NULL;
    return rc;
  }
  *dir = d;
  return BP_OK;
}

/* A side in the store is missing: what its branch has on the testbed
 * instead, if anything (other suites' runs, or one without a suite). */
static void hint(const struct bp_pr_opts *o, const struct bp_pr_side *s,
                 struct bp_pr_result *r)
{
  if(s->dir || r->suite_hint)
    return;
  r->suite_hint = bpi_compare_suite_hint(o->st, o->project, s->branch,
                                         o->testbed, o->suite,
                                         o->comment_no_base);
}

static char *buf_text(struct bp_buf *b, const char *fallback)
{
  return strdup(bpi_buf_failed(b) || !b->data ? fallback : b->data);
}

/* A run directory has no identity of its own: the run's. */
static bool fill(char **field, const char *value)
{
  if(*field || !value)
    return true;
  return (*field = strdup(value)) != NULL;
}

static bool fill_identity(struct bp_cmp *c, const struct bp_pr_opts *o)
{
  return fill(&c->head.project, o->project) &&
         fill(&c->head.branch, o->head_branch) &&
         fill(&c->head.hash, o->head_hash) &&
         fill(&c->head.commit_time, o->head_commit_time) &&
         fill(&c->head.end_time, o->head_end_time) &&
         fill(&c->head.testbed, o->testbed) &&
         fill(&c->base.project, o->project) &&
         fill(&c->base.branch, o->base.branch) &&
         fill(&c->base.testbed, o->testbed);
}

/* Store benchmark b's differential flame graph file next to the head's
 * artifacts, keyed as publish.c keys them (storekey.h): its URL and key
 * into *url and *key; a failure counted in r. */
static void store_diff(const struct bp_pr_opts *o, struct bp_pr_result *r,
                       const struct bp_cmp_bench *b, const char *file,
                       char **url, char **key_out)
{
  const char *sub = strcmp(b->head.dir, ".") ? b->head.dir : b->name;
  char *key = bpi_store_artifact_key(o->diff_run, sub, file);
  struct bp_err e = {0};
  char *folder = bpi_text_path_join(o->out, b->dir);
  char *path = folder ? bpi_text_path_join(folder, file) : NULL;
  bp_code rc = !key || !path
    ? bpi_err_set(&e, BPE_NOMEM, 0, "%s", b->name)
    : bpi_store_put_file(o->st, key, path, "image/svg+xml", NULL, &e);
  if(rc && !r->diff_failures++)
    bpi_err_set(&r->diff_error, rc, e.sys_errno, "storing %s's %s failed: "
                "%s", b->name, file, e.msg[0] ? e.msg : bp_strerror(rc));
  else if(!rc) {
    *url = bpi_store_public_url(o->st, key);
    *key_out = key;   /* the comment's words when no link reaches it */
    key = NULL;
  }
  free(key);
  free(path);
  free(folder);
}

/* *url, dropped when it is in the store at prefix (its readers' URLs):
 * there, a browser cannot open it. */
static void drop_store_url(char **url, const char *prefix)
{
  if(*url && prefix && !strncmp(*url, prefix, strlen(prefix))) {
    free(*url);
    *url = NULL;
  }
}

/* A store that needs credentials to read and has no public URL (an S3
 * bucket, an http store with a token: bpi_store_needs_credentials)
 * gives URLs a browser cannot open: the comment must not present them as
 * links.  Dropped from the comparison after compare.json has them (a
 * tool with the credentials can fetch them): the comment then names the
 * differential flame graphs' keys and says that the profiles have no
 * public URL (store.public_url).  Links to anywhere else stay. */
static void drop_private_links(const struct bp_pr_opts *o, struct bp_cmp *c)
{
  if(!o->st || !bpi_store_needs_credentials(o->st))
    return;
  char *prefix = bpi_store_public_url(o->st, "");
  if(!prefix)
    return;   /* out of memory: the rendering fails the same way */
  for(size_t i = 0; i < c->nbenches; i++) {
    struct bp_cmp_bench *b = &c->benches[i];
    struct bp_cmp_profile *sides[] = {&b->base, &b->head};
    for(size_t k = 0; k < BP_ARRAY_LEN(sides); k++) {
      drop_store_url(&sides[k]->gecko_url, prefix);
      drop_store_url(&sides[k]->svg_url, prefix);
    }
    drop_store_url(&b->diff_url, prefix);
    drop_store_url(&b->off_diff_url, prefix);
  }
  drop_store_url(&c->base.manifest_url, prefix);
  drop_store_url(&c->head.manifest_url, prefix);
  free(prefix);
}

/* Store each benchmark's diff.svg, and its diff.offcpu.svg when it has
 * one, next to the head's artifacts. */
static void store_diffs(const struct bp_pr_opts *o, struct bp_pr_result *r)
{
  struct bp_cmp *c = r->cmp;
  for(size_t i = 0; i < c->nbenches; i++) {
    struct bp_cmp_bench *b = &c->benches[i];
    if(bpi_compare_has_diff(b))
      store_diff(o, r, b, BP_FILE_DIFF_SVG, &b->diff_url, &b->diff_key);
    if(bpi_compare_has_off_diff(b))
      store_diff(o, r, b, BP_FILE_DIFF_OFFCPU_SVG, &b->off_diff_url,
                 &b->off_diff_key);
  }
}

/* The head's page in the store (site.h) shows the verdict and the
 * comment; a failure is said like a diff's, never fails the comparison. */
static void site_compare(const struct bp_pr_opts *o, struct bp_pr_result *r,
                         const struct bp_buf *md)
{
  struct bp_err e = {0};
  bp_code rc = bpi_buf_failed(md)
    ? bpi_err_set(&e, BPE_NOMEM, 0, BP_FILE_COMMENT)
    : bpi_site_compare(o->st, o->diff_run, r->cmp, md->data ? md->data : "",
                       &e);
  if(rc && !r->diff_failures++)
    bpi_err_set(&r->diff_error, rc, e.sys_errno, "the store's pages were "
                "not updated with the verdict: %s",
                e.msg[0] ? e.msg : bp_strerror(rc));
}

static bp_code write_comment(const struct bp_pr_opts *o,
                             const struct bp_buf *md, struct bp_err *err)
{
  char *path = bpi_text_path_join(o->out, BP_FILE_COMMENT);
  /* an earlier comparison's reason why there was none is not this one's */
  char *none = bpi_text_path_join(o->out, BP_FILE_NO_COMMENT);
  bp_code rc = bpi_file_mkdirs(o->out, err);
  if(!rc)
    rc = !path || !none || bpi_buf_failed(md)
      ? bpi_err_set(err, BPE_NOMEM, 0, BP_FILE_COMMENT)
      : bpi_file_write(path, md->data ? md->data : "", md->len, false, err);
  if(!rc && unlink(none) && errno != ENOENT)
    rc = bpi_err_set(err, BPE_IO, errno, "cannot remove '%s'", none);
  free(none);
  free(path);
  return rc;
}

/* A failure to read a side that says nothing about whether it exists:
 * no answer, an error answer, a refusal, a read that failed. */
static bool unreadable(bp_code rc)
{
  return rc == BPE_NET || rc == BPE_HTTP || rc == BPE_IO;
}

/* One line for OUT/no-comment.txt: the base could not be read, where,
 * and what to do; the store by its scheme and host only (the job's log
 * may be public), no transport error. */
static void unread_line(const struct bp_pr_opts *o,
                        const struct bp_pr_result *r, struct bp_buf *b)
{
  bpi_buf_adds(b, "the base could not be read: ");
  if(o->st) {
    bpi_buf_adds(b, "the store (");
    bpi_store_where(o->st, b);
    bpi_buf_adds(b, ") ");
  }
  else
    bpi_buf_adds(b, "the store ");
  if(r->base_refused)
    /* an s3:// store signs with the AWS variables: it has no token */
    bpi_buf_printf(b, "refused the credentials (HTTP %ld): check the "
                   "store's %s; ", r->base_status,
                   o->st && !strncmp(bpi_store_url(o->st), "s3://", 5)
                     ? "AWS credentials ($AWS_ACCESS_KEY_ID, "
                       "$AWS_SECRET_ACCESS_KEY, $AWS_SESSION_TOKEN)"
                     : "token");
  else if(r->base_status >= 400 && r->base_status <= 499)
    bpi_buf_printf(b, "answered HTTP %ld; ", r->base_status);
  else if(r->base_status)
    bpi_buf_printf(b, "answered HTTP %ld after its retries (store "
                   "unreachable); ", r->base_status);
  else if(r->base_error == BPE_IO)
    bpi_buf_adds(b, "could not be read, or the base's copy here not "
                 "written (a file error); ");
  else
    bpi_buf_adds(b, "did not answer (store unreachable); ");
  /* GitLab's words for a GitLab job's log */
  bool gitlab = o->repository && !strncmp(o->repository, "gitlab:", 7);
  bpi_buf_printf(b, "the %s was left as it was: re-run the job, or "
                 "'benchprof compare', once %s\n",
                 gitlab ? "merge request's note" : "pull request's comment",
                 r->base_refused ? "the store's credentials are fixed"
                                 : "the store answers");
}

/* The base could not be read (side: why): said in the result and in
 * OUT/no-comment.txt; an OUT/comment.md of an earlier comparison is
 * removed, so that nothing posts it as this one's. */
static bp_code base_unread(const struct bp_pr_opts *o, struct bp_pr_result *r,
                           const struct bp_err *side, struct bp_err *err)
{
  r->base_error = side->code;
  r->base_status = bpi_http_err_status(side);
  r->base_refused = r->base_status == 401 || r->base_status == 403;
  r->base_unread = strdup(side->msg[0] ? side->msg : bp_strerror(side->code));
  char *md = bpi_text_path_join(o->out, BP_FILE_COMMENT);
  char *txt = bpi_text_path_join(o->out, BP_FILE_NO_COMMENT);
  struct bp_buf line;
  bpi_buf_init(&line);
  unread_line(o, r, &line);
  bp_code rc = !r->base_unread || !md || !txt || bpi_buf_failed(&line)
    ? bpi_err_set(err, BPE_NOMEM, 0, "compare") : BP_OK;
  if(!rc && unlink(md) && errno != ENOENT)
    rc = bpi_err_set(err, BPE_IO, errno, "cannot remove the earlier '%s'",
                     md);
  if(!rc)
    rc = bpi_file_mkdirs(o->out, err);
  if(!rc)
    rc = bpi_file_write(txt, line.data, line.len, false, err);
  bpi_buf_cleanup(&line);
  free(txt);
  free(md);
  return rc;
}

/* what a public comment says of the store: never its URL (an internal
 * host), "the store" instead; malloc'd */
static char *public_text(const char *text, const struct bp_store *st)
{
  const char *url = st ? bpi_store_url(st) : NULL;
  size_t n = url ? strlen(url) : 0;
  struct bp_buf b;
  bpi_buf_init(&b);
  for(const char *p = text; *p; ) {
    const char *at = n ? strstr(p, url) : NULL;
    if(!at) {
      bpi_buf_adds(&b, p);
      break;
    }
    bpi_buf_add(&b, p, (size_t)(at - p));
    bpi_buf_adds(&b, "the store");
    p = at + n;
  }
  bpi_buf_addc(&b, '\0');
  char *out = bpi_buf_failed(&b) ? NULL : strdup(b.data);
  bpi_buf_cleanup(&b);
  return out;
}

/* foreign: the base in the store is another repository's (BPE_CONFIG
 * from bpi_compare_locate or bpi_compare_fetch). */
static bp_code no_base_comment(const struct bp_pr_opts *o,
                               const char *why, const char *hint,
                               bool foreign, struct bp_err *err)
{
  /* the comparison's comment options (the suite: its marker and title,
   * so that a suite's comment never replaces another's) */
  struct bp_comment_opts co = o->comment;
  if(!co.project)
    co.project = o->project;
  if(!co.testbed)
    co.testbed = o->testbed;
  if(!co.suite)
    co.suite = o->suite;
  co.base_foreign = foreign;
  co.base_hint = hint;
  struct bp_cmp_side head = {.project = (char *)o->project,
                             .branch = (char *)o->head_branch,
                             .hash = (char *)o->head_hash,
                             .commit_time = (char *)o->head_commit_time,
                             .end_time = (char *)o->head_end_time,
                             .testbed = (char *)o->testbed};
  struct bp_buf md;
  bpi_buf_init(&md);
  char *shown = public_text(why, o->st);
  bp_code rc = !shown ? bpi_err_set(err, BPE_NOMEM, 0, "comment")
    : bpi_comment_no_base(&co, &head, o->base.branch, shown, &md, err);
  if(!rc)
    rc = write_comment(o, &md, err);
  bpi_buf_cleanup(&md);
  free(shown);
  return rc;
}

/* Compare base with head and write everything. */
static bp_code compare(const struct bp_pr_opts *o, struct bp_pr_result *r,
                       const char *base, const char *head,
                       struct bp_err *err)
{
  struct bp_buf md;
  bpi_buf_init(&md);
  /* the base branch's latest run stands in for the base commit's: the
   * comment says so at its top */
  struct bp_comment_opts co = o->comment;
  co.base_latest = r->base_is_latest && o->base.latest_fallback;
  co.base_wanted = o->base.commit;
  if(o->st && bpi_store_needs_credentials(o->st))
    co.private_store = bpi_store_url(o->st);
  bp_code rc = bpi_compare_dirs(base, head, &o->cmp, &r->cmp, err);
  if(!rc && o->fill_identity && !fill_identity(r->cmp, o))
    rc = bpi_err_set(err, BPE_NOMEM, 0, "compare");
  if(!rc && o->suite && *o->suite && !(r->cmp->suite = strdup(o->suite)))
    rc = bpi_err_set(err, BPE_NOMEM, 0, "compare");
  if(!rc)
    rc = bpi_compare_write_diffs(r->cmp, o->out, err);
  if(!rc && o->diff_run && o->st)
    store_diffs(o, r);
  /* after storing: it names the stored diffs' keys */
  if(!rc)
    rc = bpi_compare_write_json(r->cmp, o->out, err);
  if(!rc)
    drop_private_links(o, r->cmp);
  if(!rc)
    rc = bpi_comment_markdown(r->cmp, &co, &md, err);
  if(!rc)
    rc = write_comment(o, &md, err);
  if(!rc && o->diff_run && o->st)
    site_compare(o, r, &md);
  bpi_buf_cleanup(&md);
  return rc;
}

bp_code bpi_compare_pr(const struct bp_pr_opts *o, struct bp_pr_result *r,
                       struct bp_err *err)
{
  char *base = NULL, *head = NULL;
  struct bp_buf why;
  memset(r, 0, sizeof(*r));
  bpi_buf_init(&why);
  if(!o->base.dir && !o->base.commit && o->base.latest_fallback)
    bpi_buf_adds(&why, "the base commit is unknown; ");
  struct bp_err side_err = {0};
  bp_code rc = open_side(o, &o->base, "base", o->repository, &base,
                         &r->base_key, &r->base_is_latest, &why, &side_err);
  if(rc == BPE_NOT_FOUND)
    hint(o, &o->base, r);
  if(rc && unreadable(rc)) {
    struct bp_err files = {0};
    bp_code wrc = base_unread(o, r, &side_err, &files);
    bpi_buf_cleanup(&why);
    if(o->comment_no_base)   /* not a failure of the run: said */
      return wrc ? bpi_err_copy(err, wrc, &files) : BP_OK;
    return bpi_err_copy(err, rc, &side_err);
  }
  if(rc && o->comment_no_base) {
    if(!(r->no_base = buf_text(&why, "out of memory")))
      rc = bpi_err_set(err, BPE_NOMEM, 0, "compare");
    else
      rc = no_base_comment(o, r->no_base, r->suite_hint,
                           side_err.code == BPE_CONFIG, err);
    bpi_buf_cleanup(&why);
    return rc;
  }
  if(rc)
    bpi_err_copy(err, rc, &side_err);
  bool latest = false;
  struct bp_buf head_why;
  bpi_buf_init(&head_why);
  side_err = (struct bp_err){0};
  if(!rc) {
    rc = open_side(o, &o->head, "head", NULL, &head, &r->head_key, &latest,
                   &head_why, &side_err);
    if(rc == BPE_NOT_FOUND && !o->head_fallback_dir)
      hint(o, &o->head, r);
    if(rc && o->head_fallback_dir) {
      r->head_fallback = strdup(side_err.msg);
      head = strdup(o->head_fallback_dir);
      rc = BP_OK;
    }
    else if(rc)
      bpi_err_copy(err, rc, &side_err);
  }
  if(!rc && !head)
    rc = bpi_err_set(err, BPE_NOMEM, 0, "compare");
  if(!rc)
    rc = compare(o, r, base, head, err);
  free(base);
  free(head);
  bpi_buf_cleanup(&head_why);
  bpi_buf_cleanup(&why);
  return rc;
}

bool bpi_compare_pr_verdict(const char *comment_path,
                            struct bp_pr_verdict *v)
{
  char *dir = strdup(comment_path), *path = NULL, *text = NULL;
  struct bp_err ignored = {0};
  bool ok = false;
  memset(v, 0, sizeof(*v));
  if(!dir)
    return false;
  char *slash = strrchr(dir, '/');
  if(slash)
    *slash = '\0';
  path = slash ? bpi_text_path_join(dir, BP_FILE_COMPARE_JSON)
               : strdup(BP_FILE_COMPARE_JSON);
  if(path && !bpi_file_read(path, &text, NULL, &ignored)) {
    cJSON *j = cJSON_Parse(text);
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(j, "head"), "hash");
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(j, "regressions");
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(
      j, "unconfirmed_regressions");
    if(cJSON_IsString(h) && cJSON_IsNumber(r) && r->valuedouble >= 0) {
      v->head_hash = strdup(h->valuestring);
      v->regressions = (size_t)r->valuedouble;
      v->unconfirmed = cJSON_IsNumber(u) && u->valuedouble >= 0 ?
                       (size_t)u->valuedouble : 0;
      ok = v->head_hash != NULL;
    }
    cJSON_Delete(j);
  }
  free(text);
  free(path);
  free(dir);
  return ok;
}

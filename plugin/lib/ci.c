/* ci: the run's identity from the CI system's environment, the GitHub
 * event payload and git.  Every source only fills what is still unknown,
 * so the caller's flags and config (set first) win; the order of the
 * sources is in ci.h. */
#include "bp_setup.h"
#include "ci.h"
#include "buf.h"
#include "config.h"  /* bpi_env_get */
#include "err.h"
#include "fileio.h"
#include "sha256.h"
#include "text.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

/* An event payload is a few kilobytes; a runaway file is an error. */
#define MAX_PAYLOAD_BYTES (16 * 1024 * 1024)
/* One line of git's answer. */
#define GIT_LINE_MAX 4096

static const size_t field_off[BP_IDENT_NFIELDS] = {
  offsetof(struct bp_ident, project), offsetof(struct bp_ident, branch),
  offsetof(struct bp_ident, hash), offsetof(struct bp_ident, testbed),
  offsetof(struct bp_ident, pr), offsetof(struct bp_ident, base_branch),
  offsetof(struct bp_ident, base_hash), offsetof(struct bp_ident, provider),
  offsetof(struct bp_ident, repo), offsetof(struct bp_ident, api_url),
  offsetof(struct bp_ident, repo_id),
};

static const char *const field_names[BP_IDENT_NFIELDS] = {
  "project", "branch", "hash", "testbed", "pr", "base_branch", "base_hash",
  "provider", "repo", "api_url", "repo_id",
};

char **bpi_ident_field(struct bp_ident *id, enum bp_ident_field f)
{
  return (char **)(void *)((char *)id + field_off[f]);
}

const char *bpi_ident_field_name(enum bp_ident_field f)
{
  return f < BP_IDENT_NFIELDS ? field_names[f] : "?";
}

bp_code bpi_ident_set(struct bp_ident *id, enum bp_ident_field f,
                      const char *value, const char *from)
{
  char **slot = bpi_ident_field(id, f);
  if(*slot || !value || !*value)
    return BP_OK;
  *slot = strdup(value);
  if(!*slot)
    return BPE_NOMEM;
  id->from[f] = from;
  return BP_OK;
}

bp_code bpi_ident_copy(struct bp_ident *dst, const struct bp_ident *src)
{
  struct bp_ident view = *src;  /* read through, never written */
  memset(dst, 0, sizeof(*dst));
  for(int f = 0; f < BP_IDENT_NFIELDS; f++) {
    const char *v = *bpi_ident_field(&view, (enum bp_ident_field)f);
    if(bpi_ident_set(dst, (enum bp_ident_field)f, v, src->from[f])) {
      bpi_ident_cleanup(dst);
      return BPE_NOMEM;
    }
  }
  if(src->warning && !(dst->warning = strdup(src->warning))) {
    bpi_ident_cleanup(dst);
    return BPE_NOMEM;
  }
  return BP_OK;
}

/* The host (and port) of url, lowercase, without user:password@; false
 * when it has none. */
static bool url_host(const char *url, char *out, size_t size)
{
  const char *p = url ? strstr(url, "://") : NULL;
  if(!p)
    return false;
  p += 3;
  size_t n = strcspn(p, "/?#");
  const char *at = memchr(p, '@', n);
  if(at) {
    n -= (size_t)(at + 1 - p);
    p = at + 1;
  }
  if(!n || n >= size)
    return false;
  for(size_t i = 0; i < n; i++)
    out[i] = (char)(p[i] >= 'A' && p[i] <= 'Z' ? p[i] - 'A' + 'a' : p[i]);
  out[n] = '\0';
  return true;
}

char *bpi_ident_repository(const struct bp_ident *id, bool *nomem)
{
  char host[256];
  struct bp_buf b;
  *nomem = false;
  if(!id->provider)
    return NULL;
  bool github = !strcmp(id->provider, "github");
  if(!github && strcmp(id->provider, "gitlab"))
    return NULL;
  /* GitHub's id outlives its owner/name (a transfer, a rename) */
  bool by_id = github && id->repo_id && *id->repo_id;
  if(!by_id && (!id->repo || !*id->repo))
    return NULL;
  bool has_host = url_host(id->api_url, host, sizeof(host));
  bpi_buf_init(&b);
  bpi_buf_adds(&b, github ? "github:" : "gitlab:");
  /* github.com's repositories as people name them */
  if(has_host && !(github && !strcmp(host, "api.github.com")))
    bpi_buf_printf(&b, "%s/", host);
  if(by_id)
    bpi_buf_printf(&b, "id:%s", id->repo_id);
  else
    bpi_buf_adds(&b, id->repo);
  bpi_buf_addc(&b, '\0');
  if(bpi_buf_failed(&b)) {
    bpi_buf_cleanup(&b);
    *nomem = true;
    return NULL;
  }
  return b.data;
}

/* GitHub's numeric form: "github:id:ID", "github:HOST/id:ID" */
static bool github_by_id(const char *r)
{
  return !strncmp(r, "github:", 7) &&
         (!strncmp(r + 7, "id:", 3) || strstr(r + 7, "/id:"));
}

bool bpi_repository_other(const char *a, const char *b)
{
  if(!a || !b || !strcmp(a, b))
    return false;
  bool both_github = !strncmp(a, "github:", 7) && !strncmp(b, "github:", 7);
  return !both_github || github_by_id(a) == github_by_id(b);
}

void bpi_ident_cleanup(struct bp_ident *id)
{
  for(int f = 0; f < BP_IDENT_NFIELDS; f++)
    free(*bpi_ident_field(id, (enum bp_ident_field)f));
  free(id->warning);
  memset(id, 0, sizeof(*id));
}

static bp_code ident_warn(struct bp_ident *id, const char *fmt, ...)
  __attribute__((format(printf, 2, 3)));

/* One more sentence in id->warning ("; " between them). */
static bp_code ident_warn(struct bp_ident *id, const char *fmt, ...)
{
  struct bp_buf b;
  va_list ap;
  bpi_buf_init(&b);
  if(id->warning)
    bpi_buf_printf(&b, "%s; ", id->warning);
  va_start(ap, fmt);
  char line[1024];
  vsnprintf(line, sizeof(line), fmt, ap);
  va_end(ap);
  bpi_buf_adds(&b, line);
  bpi_buf_addc(&b, '\0');
  if(bpi_buf_failed(&b)) {
    bpi_buf_cleanup(&b);
    return BPE_NOMEM;
  }
  free(id->warning);
  id->warning = b.data;
  return BP_OK;
}

void bpi_ident_json(const struct bp_ident *id, const char *suite,
                    struct bp_buf *b)
{
  struct bp_ident view = *id;  /* read through, never written */
  bpi_buf_addc(b, '{');
  for(int pass = 0; pass < 2; pass++) {
    if(pass)
      bpi_buf_adds(b, ",\n  \"from\": {");
    for(int f = 0; f < BP_IDENT_NFIELDS; f++) {
      const char *v = pass ? id->from[f]
                           : *bpi_ident_field(&view, (enum bp_ident_field)f);
      bpi_buf_printf(b, "%s\n%s", f ? "," : "", pass ? "    " : "  ");
      bpi_buf_json_str(b, bpi_ident_field_name((enum bp_ident_field)f));
      bpi_buf_adds(b, ": ");
      if(v)
        bpi_buf_json_str(b, v);
      else
        bpi_buf_adds(b, "null");
    }
    if(pass)
      bpi_buf_adds(b, "\n  }");
  }
  /* a step's, not detected: after "from", which names no source of it */
  bpi_buf_adds(b, ",\n  \"suite\": ");
  if(suite && *suite)
    bpi_buf_json_str(b, suite);
  else
    bpi_buf_adds(b, "null");
  bpi_buf_adds(b, "\n}\n");
}

/* ------------------------------------------------------------- checks */

static bool is_hash(const char *s)
{
  size_t n = 0;
  for(; s[n]; n++)
    if(!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f') ||
         (s[n] >= 'A' && s[n] <= 'F')))
      return false;
  return n == 40 || n == 64;
}

bool bpi_ci_is_hash(const char *s)
{
  return s && is_hash(s);
}

static bool is_number(const char *s)
{
  if(!*s || *s == '0' || strlen(s) > 12)
    return false;
  for(; *s; s++)
    if(*s < '0' || *s > '9')
      return false;
  return true;
}

/* A message shows at most this much of a value it refuses. */
static const char *shorten(char *out, size_t cap, const char *s)
{
  size_t i = 0;
  for(; s[i] && i + 4 < cap; i++)
    out[i] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
  if(s[i]) {
    memcpy(out + i, "...", 3);
    i += 3;
  }
  out[i] = '\0';
  return out;
}

/* Set f from variable var unless set; a hash or a pull-request number is
 * checked first. */
static bp_code from_env(struct bp_ident *id, enum bp_ident_field f,
                        char *const *envp, const char *var,
                        struct bp_err *err)
{
  const char *v = bpi_env_get(envp, var);
  char shown[64];
  if(!v || !*v || *bpi_ident_field(id, f))
    return BP_OK;
  if((f == BP_IDENT_HASH || f == BP_IDENT_BASE_HASH) && !is_hash(v))
    return bpi_err_set(err, BPE_CONFIG, 0, "%s: '%s' is not a commit hash "
                       "(40 or 64 hex digits)", var,
                       shorten(shown, sizeof(shown), v));
  if(f == BP_IDENT_PR && !is_number(v))
    return bpi_err_set(err, BPE_CONFIG, 0, "%s: '%s' is not a pull request "
                       "number", var, shorten(shown, sizeof(shown), v));
  if(bpi_ident_set(id, f, v, var))
    return bpi_err_set(err, BPE_NOMEM, 0, "%s", var);
  return BP_OK;
}

static bool env_is(char *const *envp, const char *var, const char *value)
{
  const char *v = bpi_env_get(envp, var);
  return v && !strcmp(v, value);
}

static bool any_env(char *const *envp, const char *const *vars)
{
  for(; *vars; vars++) {
    const char *v = bpi_env_get(envp, *vars);
    if(v && *v)
      return true;
  }
  return false;
}

/* ------------------------------------------------------------ Bencher */

/* Our names, set by a Bencher runner job's definition (see ci.h). */
static const char *const bencher_vars[] = {
  "BENCHER_PROJECT", "BENCHER_BRANCH", "BENCHER_HASH", "BENCHER_TESTBED",
  "BENCHER_START_POINT", "BENCHER_START_POINT_HASH", NULL
};

static bp_code detect_bencher(struct bp_ident *id, char *const *envp,
                              struct bp_err *err)
{
  static const enum bp_ident_field fields[] = {
    BP_IDENT_PROJECT, BP_IDENT_BRANCH, BP_IDENT_HASH, BP_IDENT_TESTBED,
    BP_IDENT_BASE_BRANCH, BP_IDENT_BASE_HASH,
  };
  bp_code rc = BP_OK;
  for(size_t i = 0; !rc && i < BP_ARRAY_LEN(fields); i++)
    rc = from_env(id, fields[i], envp, bencher_vars[i], err);
  return rc;
}

/* ------------------------------------------------------------- GitHub */

struct payload {
  const char *var;   /* "GITHUB_EVENT_PATH" */
  const char *file;
  struct bp_err *err;
};

static bp_code payload_fail(const struct payload *p, const char *fmt, ...)
  __attribute__((format(printf, 2, 3)));

static bp_code payload_fail(const struct payload *p, const char *fmt, ...)
{
  char what[320];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof(what), fmt, ap);
  va_end(ap);
  return bpi_err_set(p->err, BPE_FORMAT, 0, "event payload '%s' (%s): %s",
                     p->file, p->var, what);
}

/* obj.name as a string (NULL when absent or null); an error when it is
 * there but not a string or fails check. */
static bp_code payload_str(const struct payload *p, const cJSON *obj,
                           const char *path, const char *name,
                           bool (*check)(const char *), const char **out)
{
  const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, name);
  char shown[64];
  *out = NULL;
  if(!j || cJSON_IsNull(j))
    return BP_OK;
  if(!cJSON_IsString(j) || !*j->valuestring)
    return payload_fail(p, "$.%s.%s: expected a non-empty string", path,
                        name);
  if(check && !check(j->valuestring))
    return payload_fail(p, "$.%s.%s: '%s' is not a commit hash", path, name,
                        shorten(shown, sizeof(shown), j->valuestring));
  *out = j->valuestring;
  return BP_OK;
}

/* "owner:ref": a fork's branch is named apart from the base repository's
 * branches, so that a fork's "main" never stands for (or overwrites) the
 * base's "main".  NULL when out of memory. */
static char *fork_branch(const char *owner, const char *ref)
{
  size_t n = strlen(owner) + 1 + strlen(ref) + 1;
  char *b = malloc(n);
  if(b)
    snprintf(b, n, "%s:%s", owner, ref);
  return b;
}

/* obj.repo.full_name, or NULL. */
static const char *repo_full_name(const cJSON *side)
{
  const cJSON *repo = cJSON_GetObjectItemCaseSensitive(side, "repo");
  const cJSON *name = cJSON_GetObjectItemCaseSensitive(repo, "full_name");
  return cJSON_IsString(name) && *name->valuestring ? name->valuestring
                                                    : NULL;
}

/* Whether the pull request comes from another repository than its base:
 * head.repo.full_name differs from base.repo.full_name, or the head's
 * repository is gone (a deleted fork: "repo": null).  Payloads without
 * repositories are taken as same-repository pull requests. */
static bool github_is_fork(const cJSON *head, const cJSON *base)
{
  const cJSON *head_repo = cJSON_GetObjectItemCaseSensitive(head, "repo");
  const char *from = repo_full_name(head), *into = repo_full_name(base);
  if(into && head_repo && cJSON_IsNull(head_repo))
    return true;
  return from && into && strcmp(from, into) != 0;
}

/* The fork's owner: head.repo.owner.login, else the owner part of
 * head.repo.full_name or of head.label ("owner:ref"), else "fork".  The
 * result is copied into out (cap bytes). */
static const char *github_fork_owner(const cJSON *head, char *out,
                                     size_t cap)
{
  const cJSON *repo = cJSON_GetObjectItemCaseSensitive(head, "repo");
  const cJSON *owner = cJSON_GetObjectItemCaseSensitive(repo, "owner");
  const cJSON *login = cJSON_GetObjectItemCaseSensitive(owner, "login");
  const cJSON *label = cJSON_GetObjectItemCaseSensitive(head, "label");
  const char *full = repo_full_name(head);
  const char *s = "fork";
  size_t n = strlen(s);
  if(cJSON_IsString(login) && *login->valuestring) {
    s = login->valuestring;
    n = strlen(s);
  }
  else if(full && strchr(full, '/') && full[0] != '/') {
    s = full;
    n = (size_t)(strchr(full, '/') - full);
  }
  else if(cJSON_IsString(label) && strchr(label->valuestring, ':') &&
          label->valuestring[0] != ':') {
    s = label->valuestring;
    n = (size_t)(strchr(s, ':') - s);
  }
  if(n >= cap)
    n = cap - 1;
  memcpy(out, s, n);
  out[n] = '\0';
  return out;
}

/* pull_request.* of the payload into id. */
static bp_code github_pull_request(struct bp_ident *id,
                                   const struct payload *p, const cJSON *pr)
{
  static const char from_head_sha[] = "event payload pull_request.head.sha";
  static const char from_head_ref[] = "event payload pull_request.head.ref";
  static const char from_base_sha[] = "event payload pull_request.base.sha";
  static const char from_base_ref[] = "event payload pull_request.base.ref";
  static const char from_fork_ref[] = "event payload pull_request.head "
                                      "(a fork: owner:ref)";
  const cJSON *num = cJSON_GetObjectItemCaseSensitive(pr, "number");
  const cJSON *head = cJSON_GetObjectItemCaseSensitive(pr, "head");
  const cJSON *base = cJSON_GetObjectItemCaseSensitive(pr, "base");
  const char *head_sha, *head_ref, *base_sha, *base_ref;
  char number[24];
  bp_code rc;
  if(!cJSON_IsObject(pr))
    return payload_fail(p, "$.pull_request: expected an object");
  if(!cJSON_IsNumber(num) || num->valuedouble < 1 ||
     num->valuedouble > 1e12 || num->valuedouble != (double)(long long)
     num->valuedouble)
    return payload_fail(p, "$.pull_request.number: expected a positive "
                        "whole number");
  if(!cJSON_IsObject(head) || !cJSON_IsObject(base))
    return payload_fail(p, "$.pull_request: expected \"head\" and \"base\" "
                        "objects");
  rc = payload_str(p, head, "pull_request.head", "sha", is_hash, &head_sha);
  if(!rc)
    rc = payload_str(p, head, "pull_request.head", "ref", NULL, &head_ref);
  if(!rc)
    rc = payload_str(p, base, "pull_request.base", "sha", is_hash, &base_sha);
  if(!rc)
    rc = payload_str(p, base, "pull_request.base", "ref", NULL, &base_ref);
  if(rc)
    return rc;
  snprintf(number, sizeof(number), "%lld", (long long)num->valuedouble);
  char *qualified = NULL;
  if(github_is_fork(head, base)) {
    char owner[128];
    if(!head_ref)
      return payload_fail(p, "$.pull_request.head.ref: a pull request from "
                          "a fork needs its branch name");
    qualified = fork_branch(github_fork_owner(head, owner, sizeof(owner)),
                            head_ref);
    if(!qualified)
      return bpi_err_set(p->err, BPE_NOMEM, 0, "event payload");
  }
  rc = bpi_ident_set(id, BP_IDENT_BRANCH, qualified, from_fork_ref);
  free(qualified);
  if(rc ||
     bpi_ident_set(id, BP_IDENT_PR, number, "event payload "
                   "pull_request.number") ||
     bpi_ident_set(id, BP_IDENT_HASH, head_sha, from_head_sha) ||
     bpi_ident_set(id, BP_IDENT_BRANCH, head_ref, from_head_ref) ||
     bpi_ident_set(id, BP_IDENT_BASE_HASH, base_sha, from_base_sha) ||
     bpi_ident_set(id, BP_IDENT_BASE_BRANCH, base_ref, from_base_ref))
    return bpi_err_set(p->err, BPE_NOMEM, 0, "event payload");
  return BP_OK;
}

/* What detection learnt that is not part of the identity: the
 * repository's default branch (the GitHub payload's
 * repository.default_branch, GitLab's CI_DEFAULT_BRANCH). */
struct detected {
  char *default_branch;
};

/* $.repository.default_branch into d (unless known). */
static bp_code github_default_branch(struct detected *d, const cJSON *root)
{
  const cJSON *repo = cJSON_GetObjectItemCaseSensitive(root, "repository");
  const cJSON *def = cJSON_GetObjectItemCaseSensitive(repo, "default_branch");
  if(d->default_branch || !cJSON_IsString(def) || !*def->valuestring)
    return BP_OK;
  d->default_branch = strdup(def->valuestring);
  return d->default_branch ? BP_OK : BPE_NOMEM;
}

static bp_code github_payload(struct bp_ident *id, struct detected *d,
                              const char *file, struct bp_err *err)
{
  struct payload p = {.var = "GITHUB_EVENT_PATH", .file = file, .err = err};
  struct stat st;
  char *text = NULL;
  size_t len = 0;
  cJSON *root = NULL;
  bp_code rc = BP_OK;
  if(stat(file, &st))
    return payload_fail(&p, "cannot read it: %s", strerror(errno));
  if(!S_ISREG(st.st_mode) || st.st_size > MAX_PAYLOAD_BYTES)
    return payload_fail(&p, "not a regular file of at most %d bytes",
                        MAX_PAYLOAD_BYTES);
  struct bp_err rerr = {0};
  if(bpi_file_read(file, &text, &len, &rerr))
    return payload_fail(&p, "%s", rerr.msg);
  const char *end = NULL;
  root = cJSON_ParseWithLengthOpts(text, len + 1, &end, true);
  if(!root) {
    size_t off = end ? (size_t)(end - text) : 0;
    unsigned line = 1, col = 1;
    for(size_t i = 0; i < off && i < len; i++) {
      col = text[i] == '\n' ? 1 : col + 1;
      line += text[i] == '\n';
    }
    rc = payload_fail(&p, "%u:%u: JSON syntax error", line, col);
    goto out;
  }
  if(!cJSON_IsObject(root)) {
    rc = payload_fail(&p, "$: expected an object");
    goto out;
  }
  const cJSON *pr = cJSON_GetObjectItemCaseSensitive(root, "pull_request");
  if(pr && !cJSON_IsNull(pr))
    rc = github_pull_request(id, &p, pr);
  if(!rc && github_default_branch(d, root))
    rc = bpi_err_set(err, BPE_NOMEM, 0, "event payload");
out:
  cJSON_Delete(root);
  free(text);
  return rc;
}

/* The name part of "owner/name". */
static const char *repo_name(const char *repo)
{
  const char *slash = repo ? strrchr(repo, '/') : NULL;
  return slash && slash[1] ? slash + 1 : NULL;
}

/* GITHUB_REPOSITORY_ID when it is a repository id (a number), else NULL:
 * anything else would name no repository, and owner/name is then used. */
static const char *github_repo_id(char *const *envp)
{
  const char *v = bpi_env_get(envp, "GITHUB_REPOSITORY_ID");
  return v && is_number(v) ? v : NULL;
}

/* Whether GITHUB_REF_NAME and GITHUB_SHA name the code this job runs.
 * For push, pull requests, workflow_dispatch, schedule and merge_group
 * they do; for the others (issue_comment, workflow_run,
 * repository_dispatch, ...) GitHub sets them to the default branch's
 * last commit whatever the job checks out: a "/benchmark" comment on a
 * pull request would be published as the default branch.  Unset (a
 * runner too old to say, a hand-made environment): trusted as before. */
static bool github_ref_is_code(const char *event)
{
  static const char *const trusted[] = {
    "push", "pull_request", "pull_request_target", "pull_request_review",
    "pull_request_review_comment", "workflow_dispatch", "schedule",
    "merge_group", NULL
  };
  if(!event || !*event)
    return true;
  for(const char *const *t = trusted; *t; t++)
    if(!strcmp(event, *t))
      return true;
  return false;
}

static bp_code detect_github(struct bp_ident *id, struct detected *d,
                             char *const *envp, struct bp_err *err)
{
  const char *event = bpi_env_get(envp, "GITHUB_EVENT_PATH");
  const char *name = bpi_env_get(envp, "GITHUB_EVENT_NAME");
  bool ref_is_code = github_ref_is_code(name);
  char shown[64];
  bp_code rc = BP_OK;
  if(event && *event)
    rc = github_payload(id, d, event, err);
  /* on a pull request GITHUB_REF_NAME is "42/merge": the head ref first */
  if(!rc)
    rc = from_env(id, BP_IDENT_BRANCH, envp, "GITHUB_HEAD_REF", err);
  if(!rc && ref_is_code)
    rc = from_env(id, BP_IDENT_BRANCH, envp, "GITHUB_REF_NAME", err);
  if(!rc)
    rc = from_env(id, BP_IDENT_BASE_BRANCH, envp, "GITHUB_BASE_REF", err);
  if(!rc && ref_is_code)
    rc = from_env(id, BP_IDENT_HASH, envp, "GITHUB_SHA", err);
  if(!rc)
    rc = from_env(id, BP_IDENT_REPO, envp, "GITHUB_REPOSITORY", err);
  if(!rc)
    rc = from_env(id, BP_IDENT_API_URL, envp, "GITHUB_API_URL", err);
  if(!rc && !ref_is_code &&
     ident_warn(id, "GITHUB_EVENT_NAME=%s: GITHUB_REF_NAME and GITHUB_SHA "
                "name the default branch's last commit, not the code this "
                "job runs: the branch and commit come from the checkout "
                "(git) or from --branch/--hash (BENCHER_BRANCH, "
                "BENCHER_HASH)", shorten(shown, sizeof(shown), name)))
    rc = bpi_err_set(err, BPE_NOMEM, 0, "ci");
  if(rc)
    return rc;
  if(bpi_ident_set(id, BP_IDENT_PROJECT,
                   repo_name(bpi_env_get(envp, "GITHUB_REPOSITORY")),
                   "GITHUB_REPOSITORY") ||
     bpi_ident_set(id, BP_IDENT_API_URL, "https://api.github.com",
                   "default for GitHub") ||
     bpi_ident_set(id, BP_IDENT_REPO_ID, github_repo_id(envp),
                   "GITHUB_REPOSITORY_ID") ||
     bpi_ident_set(id, BP_IDENT_PROVIDER, "github", "GITHUB_ACTIONS"))
    return bpi_err_set(err, BPE_NOMEM, 0, "ci");
  return BP_OK;
}

/* ------------------------------------------------------------- GitLab */

/* A merge request from a fork (its source project is not the project the
 * pipeline runs for): the branch is "namespace:branch", the source
 * project's namespace (CI_MERGE_REQUEST_SOURCE_PROJECT_PATH without its
 * last part; else the source project's id), so that a fork's "main" is
 * never the target project's "main". */
static bp_code gitlab_fork_branch(struct bp_ident *id, char *const *envp,
                                  struct bp_err *err)
{
  const char *source = bpi_env_get(envp, "CI_MERGE_REQUEST_SOURCE_PROJECT_ID");
  const char *target = bpi_env_get(envp, "CI_MERGE_REQUEST_PROJECT_ID");
  const char *path = bpi_env_get(envp, "CI_MERGE_REQUEST_SOURCE_PROJECT_PATH");
  const char *ref = bpi_env_get(envp, "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME");
  if(!ref || !*ref)
    ref = bpi_env_get(envp, "CI_COMMIT_REF_NAME");
  if(id->branch || !source || !*source || !target || !*target ||
     !strcmp(source, target) || !ref || !*ref)
    return BP_OK;
  const char *slash = path ? strrchr(path, '/') : NULL;
  char owner[256];
  if(slash && slash != path && (size_t)(slash - path) < sizeof(owner)) {
    memcpy(owner, path, (size_t)(slash - path));
    owner[slash - path] = '\0';
  }
  else
    snprintf(owner, sizeof(owner), "%s", source);
  char *branch = fork_branch(owner, ref);
  bp_code rc = branch ? bpi_ident_set(id, BP_IDENT_BRANCH, branch,
                                      "CI_MERGE_REQUEST_SOURCE_PROJECT_PATH "
                                      "and _BRANCH_NAME (a fork)")
                      : BPE_NOMEM;
  free(branch);
  return rc ? bpi_err_set(err, rc, 0, "ci") : BP_OK;
}

/* Whether the pipeline runs on the merge of the source into the target
 * (merged results, merge trains): what it measures holds the target's
 * tip, so that tip (CI_MERGE_REQUEST_TARGET_BRANCH_SHA) is the base to
 * compare with, not the merge base (CI_MERGE_REQUEST_DIFF_BASE_SHA). */
static bool gitlab_merged(char *const *envp)
{
  return env_is(envp, "CI_MERGE_REQUEST_EVENT_TYPE", "merged_result") ||
         env_is(envp, "CI_MERGE_REQUEST_EVENT_TYPE", "merge_train");
}

/* The variables of a GitLab job's repo, first set wins: a fork's merge
 * request pipeline runs in the fork (CI_PROJECT_ID), but the merge
 * request, and so its notes, belong to the target.  detect_gitlab and
 * bpi_ci_job_repository read the same. */
static const char *const GITLAB_REPO_VARS[2] = {
  "CI_MERGE_REQUEST_PROJECT_ID", "CI_PROJECT_ID"
};

static bp_code detect_gitlab(struct bp_ident *id, struct detected *d,
                             char *const *envp, struct bp_err *err)
{
  static const struct {
    enum bp_ident_field f;
    const char *var;
  } vars[] = {
    {BP_IDENT_PR, "CI_MERGE_REQUEST_IID"},
    /* merged-results pipelines build a merge commit: the source's head */
    {BP_IDENT_HASH, "CI_MERGE_REQUEST_SOURCE_BRANCH_SHA"},
    {BP_IDENT_BRANCH, "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME"},
    {BP_IDENT_BASE_BRANCH, "CI_MERGE_REQUEST_TARGET_BRANCH_NAME"},
    {BP_IDENT_BASE_HASH, "CI_MERGE_REQUEST_DIFF_BASE_SHA"},
    {BP_IDENT_BRANCH, "CI_COMMIT_REF_NAME"},
    {BP_IDENT_HASH, "CI_COMMIT_SHA"},
    {BP_IDENT_PROJECT, "CI_PROJECT_NAME"},
    {BP_IDENT_API_URL, "CI_API_V4_URL"},
  };
  bp_code rc = gitlab_fork_branch(id, envp, err);
  if(!rc && gitlab_merged(envp))
    rc = from_env(id, BP_IDENT_BASE_HASH, envp,
                  "CI_MERGE_REQUEST_TARGET_BRANCH_SHA", err);
  for(size_t i = 0; !rc && i < BP_ARRAY_LEN(vars); i++)
    rc = from_env(id, vars[i].f, envp, vars[i].var, err);
  for(size_t i = 0; !rc && i < BP_ARRAY_LEN(GITLAB_REPO_VARS); i++)
    rc = from_env(id, BP_IDENT_REPO, envp, GITLAB_REPO_VARS[i], err);
  const char *def = bpi_env_get(envp, "CI_DEFAULT_BRANCH");
  if(!rc && def && *def && !d->default_branch &&
     !(d->default_branch = strdup(def)))
    rc = bpi_err_set(err, BPE_NOMEM, 0, "ci");
  if(!rc && bpi_ident_set(id, BP_IDENT_PROVIDER, "gitlab", "GITLAB_CI"))
    rc = bpi_err_set(err, BPE_NOMEM, 0, "ci");
  return rc;
}

/* ---------------------------------------------------------------- git */

/* What git prints for args (run in dir, no shell), up to GIT_LINE_MAX
 * bytes, into buf; false when git is missing, fails or prints nothing. */
static bool git_output(const char *dir, char *const *envp,
                       const char *const *args, char buf[GIT_LINE_MAX])
{
  static char *const no_env[] = {NULL};
  char *argv[10];
  size_t n = 0;
  argv[n++] = (char *)"git";
  argv[n++] = (char *)"-C";
  argv[n++] = (char *)dir;
  for(; *args && n < BP_ARRAY_LEN(argv) - 1; args++)
    argv[n++] = (char *)*args;
  argv[n] = NULL;
  buf[0] = '\0';

  int fds[2];
  if(pipe2(fds, O_CLOEXEC))
    return false;
  posix_spawn_file_actions_t fa;
  pid_t pid;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  int rc = posix_spawnp(&pid, "git", &fa, NULL, argv,
                        envp ? envp : no_env);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  if(rc) {
    close(fds[0]);
    return false;
  }
  size_t len = 0;
  for(;;) {
    ssize_t got = read(fds[0], buf + len, GIT_LINE_MAX - 1 - len);
    if(got < 0 && errno == EINTR)
      continue;
    if(got <= 0)
      break;
    len += (size_t)got;
    if(len == GIT_LINE_MAX - 1) {
      /* drain the rest so git is not stopped on a full pipe */
      char sink[512];
      while(read(fds[0], sink, sizeof(sink)) > 0)
        ;
      break;
    }
  }
  close(fds[0]);
  int status;
  while(waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  buf[len] = '\0';
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 && buf[0];
}

/* The next line of *text (cut there, *text moved past it), or NULL at its
 * end. */
static char *next_line(char **text)
{
  char *line = *text;
  if(!*line)
    return NULL;
  char *nl = strchr(line, '\n');
  if(nl) {
    *nl = '\0';
    *text = nl + 1;
  }
  else {
    *text = line + strlen(line);
  }
  return line;
}

/* What git knows of the work tree in dir: its top-level directory, the
 * commit checked out and the branch ("" when HEAD is detached), each
 * empty when unknown.  One git process in the usual case (a repository
 * with a commit): each costs a few milliseconds, which `run` adds to
 * the benchmark's wall time. */
struct git_facts {
  char top[GIT_LINE_MAX];
  char hash[GIT_LINE_MAX];
  char branch[GIT_LINE_MAX];
};

static void git_facts(const char *dir, char *const *envp,
                      struct git_facts *g)
{
  /* options apply to the arguments after them: the top level, HEAD's
   * commit, then HEAD's ref ("refs/heads/NAME", or "HEAD" detached) */
  static const char *const all[] = {"rev-parse", "--show-toplevel", "HEAD",
                                    "--symbolic-full-name", "HEAD", NULL};
  static const char *const top[] = {"rev-parse", "--show-toplevel", NULL};
  static const char *const head[] = {"rev-parse", "--verify", "-q", "HEAD",
                                     NULL};
  static const char *const branch[] = {"symbolic-ref", "--short", "-q",
                                       "HEAD", NULL};
  static const char heads[] = "refs/heads/";
  char out[GIT_LINE_MAX];
  memset(g, 0, sizeof(*g));
  if(git_output(dir, envp, all, out)) {
    char *text = out, *t = next_line(&text), *h = next_line(&text);
    char *ref = next_line(&text);
    if(t && h && ref && !*text) {
      snprintf(g->top, sizeof(g->top), "%s", t);
      snprintf(g->hash, sizeof(g->hash), "%s", h);
      if(!strncmp(ref, heads, sizeof(heads) - 1))
        snprintf(g->branch, sizeof(g->branch), "%s", ref + sizeof(heads) - 1);
      return;
    }
  }
  /* not a repository, a HEAD without a commit yet (its branch is known),
   * or a top level with a newline in its name (no project then, but its
   * commit and branch): each asked on its own */
  if(!git_output(dir, envp, top, out))
    return;
  char *text = out;
  char *t = next_line(&text);
  if(t && !*text)
    snprintf(g->top, sizeof(g->top), "%s", t);
  if(git_output(dir, envp, head, out)) {
    text = out;
    snprintf(g->hash, sizeof(g->hash), "%s", next_line(&text));
  }
  if(git_output(dir, envp, branch, out)) {
    text = out;
    snprintf(g->branch, sizeof(g->branch), "%s", next_line(&text));
  }
}

static bp_code detect_git(struct bp_ident *id, const char *dir,
                          char *const *envp, struct bp_err *err)
{
  struct git_facts *g = malloc(sizeof(*g));
  if(!g)
    return bpi_err_set(err, BPE_NOMEM, 0, "ci");
  git_facts(dir ? dir : ".", envp, g);
  bool used = false;
  bp_code rc = BP_OK;
  if(!id->hash && is_hash(g->hash)) {
    rc = bpi_ident_set(id, BP_IDENT_HASH, g->hash, "git rev-parse HEAD");
    used = true;
  }
  /* a detached HEAD has no branch: it stays unknown */
  if(!rc && !id->branch && g->branch[0]) {
    rc = bpi_ident_set(id, BP_IDENT_BRANCH, g->branch,
                       "git symbolic-ref HEAD");
    used = true;
  }
  const char *name = strrchr(g->top, '/');
  if(!rc && !id->project && name && name[1]) {
    rc = bpi_ident_set(id, BP_IDENT_PROJECT, name + 1,
                       "git top-level directory");
    used = true;
  }
  free(g);
  if(!rc && used)
    rc = bpi_ident_set(id, BP_IDENT_PROVIDER, "git", "git");
  return rc ? bpi_err_set(err, rc, 0, "ci") : BP_OK;
}

/* envp with one more variable, for one git process (the strings are
 * envp's and extra, only the array is new); NULL without memory. */
static char **env_plus(char *const *envp, const char *extra)
{
  size_t n = 0;
  while(envp && envp[n])
    n++;
  char **env = malloc((n + 2) * sizeof(*env));
  if(!env)
    return NULL;
  for(size_t i = 0; i < n; i++)
    env[i] = envp[i];
  env[n] = (char *)extra;
  env[n + 1] = NULL;
  return env;
}

bool bpi_ci_commit_time(const char *dir, char *const *envp, const char *hash,
                        char out[BP_COMMIT_TIME_MAX])
{
  out[0] = '\0';
  if(!hash || !is_hash(hash))
    return false;
  char rev[80];
  snprintf(rev, sizeof(rev), "%s^{commit}", hash);
  /* %ct: seconds since 1970, whatever the committer's zone; no signature
   * lines (log.showSignature) before it */
  const char *const show[] = {"show", "-s", "--no-show-signature",
                              "--format=%ct", rev, NULL};
  /* a partial clone would fetch a commit it lacks from its remote (the
   * network, perhaps a password prompt): unknown instead (git 2.44+) */
  char **env = env_plus(envp, "GIT_NO_LAZY_FETCH=1");
  char text[GIT_LINE_MAX];
  bool known = env && git_output(dir ? dir : ".", env, show, text);
  free(env);
  char *rest = text, *line = known ? next_line(&rest) : NULL;
  uint64_t secs;
  if(!line || *rest || !bpi_text_u64(line, 0, INT64_MAX, &secs))
    return false;
  time_t t = (time_t)secs;
  struct tm tm;
  return gmtime_r(&t, &tm) &&
         strftime(out, BP_COMMIT_TIME_MAX, "%Y-%m-%dT%H:%M:%SZ", &tm) > 0;
}

/* -------------------------------------------------------------- the whole */

/* "pr-N:ref": a name no git branch can have (git refuses ':' in ref
 * names), so never one that pushes publish to.  NULL without memory. */
static char *pr_branch(const char *number, const char *ref)
{
  size_t n = 3 + strlen(number) + 1 + strlen(ref) + 1;
  char *b = malloc(n);
  if(b)
    snprintf(b, n, "pr-%s:%s", number, ref);
  return b;
}

/* Whether branch matches a pattern of list (base_branches of the
 * configuration, BENCHPROF_BASE_BRANCHES; fnmatch without FNM_PATHNAME,
 * so a star also takes slashes), separated by commas or spaces: the
 * long-lived branches besides the default one that pushes publish to,
 * "develop" or "release/" and a star. */
static bool listed_base(const char *list, const char *branch)
{
  char pat[256];
  while(list && *list) {
    size_t n = strcspn(list, ", ");
    if(n && n < sizeof(pat)) {
      memcpy(pat, list, n);
      pat[n] = '\0';
      if(!fnmatch(pat, branch, 0))
        return true;
    }
    list += n;
    list += strspn(list, ", ");
  }
  return false;
}

/* A pull request whose head branch is one that pushes publish to would
 * write that branch's runs, move its latest pointer and, through the
 * report's start point, reset its Bencher history: the repository's
 * default branch (main -> release), the request's own base (a GitLab
 * merge request main -> main), or a branch BENCHPROF_BASE_BRANCHES lists
 * (develop -> main).  Such a head is published as "pr-N:ref", as a
 * fork's head is published as "owner:ref", and the warning says so.
 * Also a branch the caller gave (--branch "$GITHUB_HEAD_REF" is what
 * workflows write): on a pull request it is still the head's name. */
static bp_code guard_pr_branch(struct bp_ident *id, const struct detected *d,
                               const char *bases, struct bp_err *err)
{
  const char *why = NULL;
  if(!id->pr || !id->branch || strchr(id->branch, ':'))
    return BP_OK;
  if(id->base_branch && !strcmp(id->branch, id->base_branch))
    why = "its own base branch";
  else if(d->default_branch && !strcmp(id->branch, d->default_branch))
    why = "the repository's default branch";
  else if(listed_base(bases, id->branch))
    why = "a base branch (base_branches)";
  if(!why)
    return BP_OK;
  char *renamed = pr_branch(id->pr, id->branch);
  bp_code rc = renamed ? BP_OK : BPE_NOMEM;
  if(!rc)
    rc = ident_warn(id, "pull request %s comes from '%s', %s: its runs are "
                    "published on the branch '%s', so that '%s' keeps its "
                    "own runs, latest pointer and Bencher history", id->pr,
                    id->branch, why, renamed, id->branch);
  if(!rc) {
    free(id->branch);
    id->branch = renamed;
    id->from[BP_IDENT_BRANCH] = "pull request number and head branch (the "
                                "head is a base branch: pr-N:branch)";
    renamed = NULL;
  }
  free(renamed);
  return rc ? bpi_err_set(err, rc, 0, "ci") : BP_OK;
}

const char *bpi_ci_job(char *const *envp, const char **project)
{
  const char *provider = NULL, *name = NULL;
  if(env_is(envp, "GITHUB_ACTIONS", "true")) {
    provider = "github";
    name = repo_name(bpi_env_get(envp, "GITHUB_REPOSITORY"));
  }
  else if(env_is(envp, "GITLAB_CI", "true")) {
    provider = "gitlab";
    name = bpi_env_get(envp, "CI_PROJECT_NAME");
  }
  else if(any_env(envp, bencher_vars))
    provider = "bencher";
  /* detect_bencher fills the project first */
  const char *bencher = bpi_env_get(envp, "BENCHER_PROJECT");
  if(bencher && *bencher)
    name = bencher;
  *project = name && *name ? name : NULL;
  return provider;
}

/* Whether paths a and b name one directory (by device and inode: one
 * may be relative, or reached through a link). */
static bool same_dir(const char *a, const char *b)
{
  struct stat sa, sb;
  return !stat(a, &sa) && !stat(b, &sb) && S_ISDIR(sa.st_mode) &&
         sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Whether dir is out, or its suite=NAME subdirectory (rundir.h: a
 * suite's run writes there), the directories the end hooks look in. */
static bool hooks_dir(const char *dir, const char *out)
{
  if(same_dir(dir, out))
    return true;
  const char *slash = strrchr(dir, '/');
  const char *name = slash ? slash + 1 : dir;
  if(strncmp(name, "suite=", 6) || !name[6])
    return false;
  if(!slash)
    return same_dir(".", out);
  if(slash == dir)
    return same_dir("/", out);
  char *parent = strndup(dir, (size_t)(slash - dir));
  bool yes = parent && same_dir(parent, out);
  free(parent);
  return yes;
}

bool bpi_ci_hooks_post_comment(char *const *envp, const char *dir)
{
  const char *project;
  const char *provider = bpi_ci_job(envp, &project);
  const char *hooks = bpi_env_get(envp, "BENCHPROF_HOOKS");
  const char *out = bpi_env_get(envp, "BENCHPROF_OUTPUT");
  /* a variable left from another CI system's hooks is not this job's */
  if(!provider || !hooks || strcmp(provider, hooks) ||
     (strcmp(provider, "github") && strcmp(provider, "gitlab")))
    return false;
  /* the end hooks post only what was written under the output directory
   * the started hooks gave the job: a run with its own -o elsewhere is
   * not posted */
  return out && *out && hooks_dir(dir, out);
}

char *bpi_ci_job_id(char *const *envp, bool *nomem)
{
  const char *project;
  const char *provider = bpi_ci_job(envp, &project);
  char id[256];
  *nomem = false;
  if(provider && !strcmp(provider, "github")) {
    const char *run = bpi_env_get(envp, "GITHUB_RUN_ID");
    const char *attempt = bpi_env_get(envp, "GITHUB_RUN_ATTEMPT");
    const char *job = bpi_env_get(envp, "GITHUB_JOB");
    if(!run || !*run || !job || !*job)
      return NULL;
    snprintf(id, sizeof(id), "github:%.40s/%.20s/%.160s", run,
             attempt && *attempt ? attempt : "1", job);
  }
  else if(provider && !strcmp(provider, "gitlab")) {
    const char *job = bpi_env_get(envp, "CI_JOB_ID");
    if(!job || !*job)
      return NULL;
    snprintf(id, sizeof(id), "gitlab:%.200s", job);
  }
  else
    return NULL;
  char *copy = strdup(id);
  *nomem = !copy;
  return copy;
}

/* The runner a GitHub job runs on, for its job directory's name:
 * RUNNER_NAME (at most 60 bytes), else "temp-" and 8 hex digits of the
 * SHA-256 of RUNNER_TEMP's path, else "".  Without RUNNER_NAME (GitHub
 * sets it; a runner or an emulation of one may not) the name must still
 * differ between two runners of one host and stay the same in a job's
 * started and completed hooks: each runner has its own work directory
 * and RUNNER_TEMP in it.  The host name is the same for both runners,
 * the basenames of their work directories too (_work, or RUNNER_WORKSPACE's
 * repository name), and a parent process id differs between the hooks. */
static void github_runner(char *const *envp, char *out, size_t n)
{
  const char *name = bpi_env_get(envp, "RUNNER_NAME");
  const char *temp = bpi_env_get(envp, "RUNNER_TEMP");
  unsigned char digest[BP_SHA256_LEN];
  if(name && *name)
    snprintf(out, n, "%.60s", name);
  else if(temp && *temp) {
    bpi_sha256(temp, strlen(temp), digest);
    snprintf(out, n, "temp-%02x%02x%02x%02x", digest[0], digest[1],
             digest[2], digest[3]);
  }
  else
    snprintf(out, n, "%s", "");
}

char *bpi_ci_job_dir(char *const *envp, bool *nomem)
{
  char *id = bpi_ci_job_id(envp, nomem);
  if(!id)
    return NULL;
  /* a matrix's jobs share GITHUB_JOB: the runner (one job at a time)
   * tells apart those that run on one host at once */
  char runner[72] = "";
  if(!strncmp(id, "github:", 7))
    github_runner(envp, runner, sizeof(runner));
  char name[320];
  snprintf(name, sizeof(name), "job=%s%s%s", id, *runner ? "-" : "",
           runner);
  free(id);
  /* one directory name: the id's separators become '-', anything else
   * outside [A-Za-z0-9._-] '_' (a runner's name is free text) */
  for(char *c = name + 4; *c; c++) {
    if(*c == ':' || *c == '/')
      *c = '-';
    else if(!isalnum((unsigned char)*c) && !strchr("._-", *c))
      *c = '_';
  }
  char *copy = strdup(name);
  *nomem = !copy;
  return copy;
}

char *bpi_ci_job_repository(char *const *envp, bool *nomem)
{
  const char *project;
  const char *provider = bpi_ci_job(envp, &project);
  /* a view of envp's strings, as bpi_ci_detect would copy them */
  struct bp_ident view = {.provider = (char *)provider};
  *nomem = false;
  if(!provider)
    return NULL;
  if(!strcmp(provider, "github")) {
    view.repo = (char *)bpi_env_get(envp, "GITHUB_REPOSITORY");
    view.repo_id = (char *)github_repo_id(envp);
    view.api_url = (char *)bpi_env_get(envp, "GITHUB_API_URL");
  }
  else if(!strcmp(provider, "gitlab")) {
    for(size_t i = 0; i < BP_ARRAY_LEN(GITLAB_REPO_VARS) && !view.repo; i++) {
      const char *v = bpi_env_get(envp, GITLAB_REPO_VARS[i]);
      view.repo = v && *v ? (char *)v : NULL;
    }
    view.api_url = (char *)bpi_env_get(envp, "CI_API_V4_URL");
  }
  return bpi_ident_repository(&view, nomem);
}

bp_code bpi_ci_detect(struct bp_ident *id, char *const *envp,
                      const char *dir, struct bp_err *err)
{
  return bpi_ci_detect_bases(id, envp, dir,
                             bpi_env_get(envp, "BENCHPROF_BASE_BRANCHES"),
                             err);
}

bp_code bpi_ci_detect_bases(struct bp_ident *id, char *const *envp,
                            const char *dir, const char *base_branches,
                            struct bp_err *err)
{
  struct detected d = {.default_branch = NULL};
  bp_code rc = detect_bencher(id, envp, err);
  bool bencher = any_env(envp, bencher_vars);
  if(!rc && env_is(envp, "GITHUB_ACTIONS", "true"))
    rc = detect_github(id, &d, envp, err);
  else if(!rc && env_is(envp, "GITLAB_CI", "true"))
    rc = detect_gitlab(id, &d, envp, err);
  if(!rc && bencher &&
     bpi_ident_set(id, BP_IDENT_PROVIDER, "bencher", "BENCHER_*"))
    rc = bpi_err_set(err, BPE_NOMEM, 0, "ci");
  if(!rc && (!id->hash || !id->branch || !id->project))
    rc = detect_git(id, dir, envp, err);
  if(!rc)
    rc = guard_pr_branch(id, &d, base_branches, err);
  if(!rc && !id->testbed) {
    char host[256];
    if(!gethostname(host, sizeof(host))) {
      host[sizeof(host) - 1] = '\0';
      if(bpi_ident_set(id, BP_IDENT_TESTBED, host, "host name"))
        rc = bpi_err_set(err, BPE_NOMEM, 0, "ci");
    }
  }
  free(d.default_branch);
  return rc;
}

/* forge: the GitHub and GitLab clients that put the pull request comment
 * on the pull request (see forge.h). */
#include "bp_setup.h"
#include "forge.h"
#include "comment.h"   /* the marker, compared line, URL encoding */
#include "runorder.h"
#include "err.h"
#include "text.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <cjson/cJSON.h>

#define MAX_PAGES 100                  /* of 100 comments each */

static const char *api_base(const struct bp_forge_target *t)
{
  if(t->api_url && *t->api_url)
    return t->api_url;
  return t->forge == BP_FORGE_GITLAB ? "https://gitlab.com/api/v4" :
         "https://api.github.com";
}

static bp_code check_target(const struct bp_forge_target *t,
                            struct bp_err *err)
{
  const char *repo = t->repo ? t->repo : "";
  size_t slash = strcspn(repo, "/");
  if(!t->number || !*t->number ||
     strspn(t->number, "0123456789") != strlen(t->number))
    return bpi_err_set(err, BPE_INVAL, 0, "comment: the %s number must be "
                       "digits, not '%s'", t->forge == BP_FORGE_GITLAB ?
                       "merge request" : "pull request",
                       t->number ? t->number : "");
  if(t->forge == BP_FORGE_GITHUB &&
     (!slash || !repo[slash] || !repo[slash + 1] ||
      strchr(repo + slash + 1, '/')))
    return bpi_err_set(err, BPE_INVAL, 0, "comment: --github wants "
                       "OWNER/REPO, not '%s'", repo);
  if(t->forge == BP_FORGE_GITLAB && !*repo)
    return bpi_err_set(err, BPE_INVAL, 0, "comment: no GitLab project");
  return BP_OK;
}

/* "/repos/OWNER/REPO" or "/projects/ID", each part percent-encoded. */
static void add_repo_path(struct bp_buf *b, const struct bp_forge_target *t)
{
  if(t->forge == BP_FORGE_GITLAB) {
    bpi_buf_adds(b, "/projects/");
    bpi_comment_url_encode(b, t->repo);   /* "group/name" -> %2F */
    return;
  }
  size_t slash = strcspn(t->repo, "/");
  char *owner = strndup(t->repo, slash);
  bpi_buf_adds(b, "/repos/");
  if(owner)
    bpi_comment_url_encode(b, owner);
  else
    b->failed = true;
  bpi_buf_addc(b, '/');
  bpi_comment_url_encode(b, t->repo + slash + 1);
  free(owner);
}

static void add_base(struct bp_buf *b, const struct bp_forge_target *t)
{
  const char *base = api_base(t);
  size_t n = strlen(base);
  while(n && base[n - 1] == '/')
    n--;
  bpi_buf_add(b, base, n);
  add_repo_path(b, t);
}

bp_code bpi_comment_list_url(const struct bp_forge_target *t, unsigned page,
                             struct bp_buf *url, struct bp_err *err)
{
  bp_code rc = check_target(t, err);
  if(rc)
    return rc;
  add_base(url, t);
  bpi_buf_printf(url, t->forge == BP_FORGE_GITLAB ?
                 "/merge_requests/%s/notes?per_page=100&page=%u"
                 "&sort=asc&order_by=created_at" :
                 "/issues/%s/comments?per_page=100&page=%u",
                 t->number, page);
  bpi_buf_addc(url, '\0');
  return bpi_buf_failed(url) ? bpi_err_set(err, BPE_NOMEM, 0, "comment") :
                               BP_OK;
}

bp_code bpi_comment_write_url(const struct bp_forge_target *t,
                              const char *id, struct bp_buf *url,
                              struct bp_err *err)
{
  bp_code rc = check_target(t, err);
  if(rc)
    return rc;
  if(id && (!*id || strspn(id, "0123456789") != strlen(id)))
    return bpi_err_set(err, BPE_FORMAT, 0, "comment: odd comment id '%s'",
                       id);
  add_base(url, t);
  if(t->forge == BP_FORGE_GITLAB) {
    bpi_buf_printf(url, "/merge_requests/%s/notes", t->number);
    if(id)
      bpi_buf_printf(url, "/%s", id);
  }
  else if(id)
    bpi_buf_printf(url, "/issues/comments/%s", id);
  else
    bpi_buf_printf(url, "/issues/%s/comments", t->number);
  bpi_buf_addc(url, '\0');
  return bpi_buf_failed(url) ? bpi_err_set(err, BPE_NOMEM, 0, "comment") :
                               BP_OK;
}

void bpi_comment_body_json(struct bp_buf *b, const char *markdown)
{
  bpi_buf_adds(b, "{\"body\":");
  bpi_buf_json_str(b, markdown);
  bpi_buf_adds(b, "}");
}

/* Whether the comment item was written by *by. */
static bool written_by(const cJSON *item, const struct bp_comment_author *by)
{
  const cJSON *num = cJSON_GetObjectItemCaseSensitive(item, "id");
  for(size_t i = 0; i < by->nrefused; i++)
    if(cJSON_IsNumber(num) && num->valuedouble == by->refused[i])
      return false;
  if(by->forge == BP_FORGE_GITLAB) {
    const cJSON *author = cJSON_GetObjectItemCaseSensitive(item, "author");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(author, "id");
    return by->has_id && cJSON_IsNumber(id) && id->valuedouble == by->id;
  }
  const cJSON *user = cJSON_GetObjectItemCaseSensitive(item, "user");
  const cJSON *login = cJSON_GetObjectItemCaseSensitive(user, "login");
  const cJSON *type = cJSON_GetObjectItemCaseSensitive(user, "type");
  if(!cJSON_IsString(login))
    return false;
  if(by->login)   /* GitHub logins are case-insensitive */
    return !strcasecmp(login->valuestring, by->login);
  size_t n = strlen(login->valuestring);
  return by->any_bot && cJSON_IsString(type) &&
         !strcmp(type->valuestring, "Bot") && n > 5 &&
         !strcmp(login->valuestring + n - 5, "[bot]");
}

/* A page of the comment list, parsed: *list a JSON array (the caller
 * deletes it), else BPE_FORMAT. */
static bp_code parse_comment_list(const char *json, size_t len,
                                  cJSON **list, struct bp_err *err)
{
  *list = cJSON_ParseWithLength(json, len);
  if(cJSON_IsArray(*list))
    return BP_OK;
  cJSON_Delete(*list);
  *list = NULL;
  return bpi_err_set(err, BPE_FORMAT, 0, "comment: the comment list is "
                     "not a JSON array");
}

/* Whether a comment's id is a number that prints exactly ("%.0f"). */
static bool comment_id_ok(const cJSON *num)
{
  return cJSON_IsNumber(num) && num->valuedouble >= 0 &&
         num->valuedouble <= 9007199254740992.0;
}

bp_code bpi_comment_find_by(const char *json, size_t len, const char *marker,
                            const struct bp_comment_author *by, char **id,
                            char **body_out, size_t *count, size_t *foreign,
                            struct bp_err *err)
{
  cJSON *list;
  const cJSON *item;
  *id = NULL;
  *count = 0;
  if(body_out)
    *body_out = NULL;
  bp_code rc = parse_comment_list(json, len, &list, err);
  if(rc)
    return rc;
  cJSON_ArrayForEach(item, list) {
    const cJSON *body = cJSON_GetObjectItemCaseSensitive(item, "body");
    const cJSON *num = cJSON_GetObjectItemCaseSensitive(item, "id");
    (*count)++;
    if(!cJSON_IsString(body) || !strstr(body->valuestring, marker))
      continue;
    if(by && !written_by(item, by)) {
      if(foreign)
        (*foreign)++;
      continue;
    }
    if(*id)
      continue;
    if(!comment_id_ok(num)) {
      cJSON_Delete(list);
      return bpi_err_set(err, BPE_FORMAT, 0, "comment: our comment has no "
                         "numeric id");
    }
    struct bp_buf s;
    bpi_buf_init(&s);
    bpi_buf_printf(&s, "%.0f", num->valuedouble);
    if(bpi_buf_failed(&s)) {
      cJSON_Delete(list);
      return bpi_err_set(err, BPE_NOMEM, 0, "comment");
    }
    *id = s.data;
    if(body_out && !(*body_out = strdup(body->valuestring))) {
      free(*id);
      *id = NULL;
      cJSON_Delete(list);
      return bpi_err_set(err, BPE_NOMEM, 0, "comment");
    }
  }
  cJSON_Delete(list);
  return BP_OK;
}

bp_code bpi_comment_find(const char *json, size_t len, const char *marker,
                         char **id, size_t *count, struct bp_err *err)
{
  return bpi_comment_find_by(json, len, marker, NULL, id, NULL, count, NULL,
                             err);
}

void bpi_comment_posted_cleanup(struct bp_comment_posted *p)
{
  free(p->id);
  free(p->url);
  free(p->duplicate);
  p->id = NULL;
  p->url = NULL;
  p->duplicate = NULL;
}

/* One request through the transport; the answer's body in resp. */
static bp_code send_one(const struct bp_forge_target *t,
                        const struct bp_comment_transport *tr,
                        const char *method, const char *url,
                        const struct bp_buf *body, struct bp_http_resp *resp,
                        struct bp_comment_posted *res, struct bp_err *err)
{
  struct bp_buf auth;
  const char *headers[4] = {NULL};
  size_t nh = 0;
  bpi_buf_init(&auth);
  struct bp_http_req req = {.method = method, .url = url};
  if(t->forge == BP_FORGE_GITHUB) {
    headers[nh++] = "Accept: application/vnd.github+json";
    headers[nh++] = "X-GitHub-Api-Version: 2022-11-28";
    req.bearer = t->token;
  }
  else if(t->token) {
    bpi_buf_printf(&auth, "%s: %s", t->job_token ? "JOB-TOKEN" :
                   "PRIVATE-TOKEN", t->token);
    if(bpi_buf_failed(&auth))
      return bpi_err_set(err, BPE_NOMEM, 0, "comment");
    headers[nh++] = auth.data;
  }
  req.headers = headers;
  if(body) {
    req.content_type = "application/json";
    req.body = body->data;
    req.body_len = body->len;
  }
  bpi_buf_cleanup(&resp->body);
  bpi_buf_init(&resp->body);
  resp->status = 0;
  res->requests++;
  bp_code rc = tr->send(tr->http, &req, resp, err);
  if(rc == BPE_HTTP)
    res->http_status = resp->status;
  /* the token was in auth: wipe it before the memory goes back */
  if(auth.data)
    memset(auth.data, 0, auth.cap);
  bpi_buf_cleanup(&auth);
  return rc;
}

/* Who the token writes as, asked once (me->known after). */
struct forge_me {
  bool known;
  struct bp_comment_author author;
  char *login;   /* owns author.login */
  double refused[BP_COMMENT_MAX_REFUSED];   /* author.refused's */
};

/* GET {api}/user: GitHub's login (its 403 "Resource not accessible by
 * integration", what an installation token gets, means any "[bot]" bot
 * account), GitLab's user id. */
static bp_code who_am_i(const struct bp_forge_target *t,
                        const struct bp_comment_transport *tr,
                        struct forge_me *me, struct bp_comment_posted *res,
                        struct bp_err *err)
{
  struct bp_buf url;
  struct bp_http_resp resp = {.status = 0};
  const char *base = api_base(t);
  size_t n = strlen(base);
  while(n && base[n - 1] == '/')
    n--;
  bpi_buf_init(&url);
  bpi_buf_init(&resp.body);
  bpi_buf_add(&url, base, n);
  bpi_buf_adds(&url, "/user");
  bpi_buf_addc(&url, '\0');
  me->author = (struct bp_comment_author){.forge = t->forge};
  bp_code rc = bpi_buf_failed(&url) ? bpi_err_set(err, BPE_NOMEM, 0, "comment")
    : send_one(t, tr, "GET", url.data, NULL, &resp, res, err);
  /* only GitHub's words for an installation token: a 403 for a rate
   * limit must not make a user token's own comment look foreign */
  if(rc == BPE_HTTP && resp.status == 403 && t->forge == BP_FORGE_GITHUB &&
     resp.body.data && strstr(resp.body.data, "not accessible by "
                              "integration")) {
    bpi_err_clear(err);
    rc = BP_OK;
    me->author.any_bot = true;
  }
  else if(!rc) {
    cJSON *j = cJSON_ParseWithLength(resp.body.data ? resp.body.data : "",
                                     resp.body.len);
    const cJSON *login = cJSON_GetObjectItemCaseSensitive(j, "login");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(j, "id");
    if(t->forge == BP_FORGE_GITLAB && cJSON_IsNumber(id)) {
      me->author.has_id = true;
      me->author.id = id->valuedouble;
    }
    else if(t->forge == BP_FORGE_GITHUB && cJSON_IsString(login) &&
            *login->valuestring) {
      me->login = strdup(login->valuestring);
      me->author.login = me->login;
      if(!me->login)
        rc = bpi_err_set(err, BPE_NOMEM, 0, "comment");
    }
    else
      rc = bpi_err_set(err, BPE_FORMAT, 0, "comment: GET %s: no %s in the "
                       "answer", url.data, t->forge == BP_FORGE_GITLAB ?
                       "user id" : "login");
    cJSON_Delete(j);
  }
  me->known = !rc;
  bpi_buf_cleanup(&resp.body);
  bpi_buf_cleanup(&url);
  return rc;
}

/* Our comment's id, page by page; NULL when there is none.  Who we are is
 * asked only once a comment with the marker shows up (most pull requests
 * have none yet: no request more).  *foreign (may be NULL) counts the
 * marked comments of other accounts; *body (may be NULL) is our
 * comment's text. */
static bp_code find_ours(const struct bp_forge_target *t,
                         const struct bp_comment_transport *tr,
                         const char *marker, struct forge_me *me, char **id,
                         char **body, size_t *foreign,
                         struct bp_comment_posted *res, struct bp_err *err)
{
  struct bp_buf url;
  struct bp_http_resp resp = {.status = 0};
  bp_code rc = BP_OK;
  bpi_buf_init(&url);
  bpi_buf_init(&resp.body);
  *id = NULL;
  for(unsigned page = 1; !rc && !*id && page <= MAX_PAGES; page++) {
    size_t count = 0;
    const char *json;
    bpi_buf_reset(&url);
    rc = bpi_comment_list_url(t, page, &url, err);
    if(!rc)
      rc = send_one(t, tr, "GET", url.data, NULL, &resp, res, err);
    json = resp.body.data ? resp.body.data : "";
    if(!rc && !me->known) {
      rc = bpi_comment_find(json, resp.body.len, marker, id, &count, err);
      if(!rc && *id) {
        free(*id);
        *id = NULL;
        rc = who_am_i(t, tr, me, res, err);
      }
    }
    if(!rc && me->known)
      rc = bpi_comment_find_by(json, resp.body.len, marker, &me->author, id,
                               body, &count, foreign, err);
    if(!rc && count < 100)
      break;
  }
  bpi_buf_cleanup(&resp.body);
  bpi_buf_cleanup(&url);
  return rc;
}

static void wait_ms(long ms)
{
  struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000};
  while(ms > 0 && nanosleep(&ts, &ts))
    ;
}

/* POST a new comment.  A POST is not idempotent: when its answer is lost
 * (BPE_NET: refused, timed out, cut off, 5xx) the forge may have made
 * the comment all the same, so the transport's own retries are off for
 * it, and before each new attempt the comments are listed again: one with
 * our marker is the one that POST made (*found, and no other POST).  At
 * most 1 + retries POSTs, backing off as the transport would. */
static bp_code post_new(const struct bp_forge_target *t,
                        const struct bp_comment_transport *tr,
                        const char *url, const struct bp_buf *body,
                        const char *marker, struct forge_me *me,
                        struct bp_http_resp *resp, char **found,
                        struct bp_comment_posted *res, struct bp_err *err)
{
  struct bp_http_opts once;
  struct bp_comment_transport one = *tr;
  unsigned tries = 1;
  long delay = 0;
  if(tr->http) {
    once = *tr->http;
    tries += once.retries;
    delay = once.backoff_ms > 0 ? once.backoff_ms : 500;
    once.retries = 0;
    one.http = &once;
  }
  *found = NULL;
  bp_code rc = BP_OK;
  for(unsigned attempt = 1; ; attempt++) {
    bpi_err_clear(err);
    rc = send_one(t, &one, "POST", url, body, resp, res, err);
    if(rc != BPE_NET || attempt >= tries)
      return rc;
    wait_ms(delay);
    delay = delay * 2 > 30000 ? 30000 : delay * 2;
    struct bp_err lerr = {0};
    if(!find_ours(t, tr, marker, me, found, NULL, NULL, res, &lerr) &&
       *found) {
      bpi_err_clear(err);
      return BP_OK;   /* the lost answer's comment: posted once */
    }
    free(*found);
    *found = NULL;
  }
}

/* GitHub's words when an installation token may not do something (a
 * 403 for a rate limit says nothing of whose comment it is). */
static bool not_accessible(const struct bp_http_resp *resp)
{
  return resp->body.data && strstr(resp->body.data, "not accessible by "
                                   "integration");
}

/* Whether an edit of a comment we took for ours was refused in a way that
 * says it is not ours to edit: another App's under an installation token
 * (403, "not accessible by integration"), or deleted since it was listed
 * (404). */
static bool edit_refused(const struct forge_me *me, bp_code rc,
                         const struct bp_http_resp *resp)
{
  return rc == BPE_HTTP &&
         (resp->status == 404 ||
          (resp->status == 403 && me->author.any_bot &&
           not_accessible(resp)));
}

/* Whether the comment text (ours, on the pull request) shows a newer
 * comparison than mine: then res->left, and what it shows. */
static bool shows_newer(const struct bp_forge_target *t, const char *text,
                        const struct bp_run_when *mine,
                        struct bp_comment_posted *res)
{
  struct bp_comment_compared theirs;
  if(!bpi_comment_find_compared(text, &theirs))
    return false;   /* an older benchprof's: replaced */
  const struct bp_run_when when = bpi_comment_compared_when(&theirs);
  /* mine is of the request's head now: another commit's is out of date,
   * even one committed later (the branch was reset to an older one) */
  if(t->head_is_current && mine->commit &&
     !(when.commit && !strcmp(when.commit, mine->commit)))
    return false;
  if(!bpi_run_newer(&when, mine))
    return false;
  res->left = true;
  res->shown = theirs;
  return true;
}

/* Find our comment and edit it (PATCH, GitLab's PUT) unless it shows a
 * newer comparison than mine (res->left, *id its id); a refused edit
 * passes that comment over and looks again.  *id NULL (and *url the
 * list's POST URL) when there is none to edit: the caller makes one. */
static bp_code edit_ours(const struct bp_forge_target *t,
                         const struct bp_comment_transport *tr,
                         const char *marker, const struct bp_run_when *mine,
                         const struct bp_buf *body, struct forge_me *me,
                         char **id, struct bp_buf *url,
                         struct bp_http_resp *resp,
                         struct bp_comment_posted *res, struct bp_err *err)
{
  for(;;) {
    char *text = NULL;
    res->foreign = 0;   /* counted again by each look */
    bpi_buf_reset(url);
    bp_code rc = find_ours(t, tr, marker, me, id, &text, &res->foreign, res,
                           err);
    bool newer = !rc && *id && shows_newer(t, text, mine, res);
    free(text);
    if(!rc && !newer)
      rc = bpi_comment_write_url(t, *id, url, err);
    if(rc || !*id || newer)
      return rc;
    rc = send_one(t, tr, t->forge == BP_FORGE_GITLAB ? "PUT" : "PATCH",
                  url->data, body, resp, res, err);
    if(!edit_refused(me, rc, resp))
      return rc;
    bpi_err_clear(err);
    /* every refused one is remembered: a lost POST's answer is looked for
     * among the others (post_new) */
    me->refused[me->author.nrefused++] = strtod(*id, NULL);
    me->author.refused = me->refused;
    free(*id);
    *id = NULL;
    if(me->author.nrefused == BP_COMMENT_MAX_REFUSED) {
      /* enough looking: a comment of our own (the list's URL) */
      bpi_buf_reset(url);
      return bpi_comment_write_url(t, NULL, url, err);
    }
  }
}

/* ------------------------------------------- two jobs posting at once */

/* The account that wrote the comment in a POST's answer (GitHub's
 * user.login, GitLab's author.id): another job with the same token
 * writes as it.  *login owns a GitHub login; false when the answer does
 * not say (then GET /user is asked). */
static bool author_of(const struct bp_forge_target *t,
                      const struct bp_http_resp *resp,
                      struct bp_comment_author *a, char **login)
{
  cJSON *j = cJSON_ParseWithLength(resp->body.data ? resp->body.data : "",
                                   resp->body.len);
  bool gitlab = t->forge == BP_FORGE_GITLAB;
  const cJSON *who = cJSON_GetObjectItemCaseSensitive(j, gitlab ? "author" :
                                                      "user");
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(who, "id");
  const cJSON *name = cJSON_GetObjectItemCaseSensitive(who, "login");
  *a = (struct bp_comment_author){.forge = t->forge};
  *login = NULL;
  if(gitlab && cJSON_IsNumber(id)) {
    a->has_id = true;
    a->id = id->valuedouble;
  }
  else if(!gitlab && cJSON_IsString(name) && *name->valuestring)
    a->login = *login = strdup(name->valuestring);
  cJSON_Delete(j);
  return a->has_id || a->login;
}

/* The ids of our marked comments, every one seen (lowest_ours). */
struct forge_ids {
  double *v;
  size_t n, cap;
};

static bool ids_add(struct forge_ids *ids, double id)
{
  if(ids->n == ids->cap) {
    size_t cap = ids->cap ? ids->cap * 2 : 4;
    double *v = realloc(ids->v, cap * sizeof(*v));
    if(!v)
      return false;
    ids->v = v;
    ids->cap = cap;
  }
  ids->v[ids->n++] = id;
  return true;
}

/* The lowest-id comment with the marker by *by on one list page, if
 * lower than *lowest (-1: none yet); *body its text (malloc'd); each
 * one's id added to *all when not NULL. */
static bp_code lowest_on_page(const char *json, size_t len,
                              const char *marker,
                              const struct bp_comment_author *by,
                              double *lowest, char **body,
                              struct forge_ids *all, size_t *count,
                              struct bp_err *err)
{
  cJSON *list;
  const cJSON *item;
  *count = 0;
  bp_code rc = parse_comment_list(json, len, &list, err);
  if(rc)
    return rc;
  cJSON_ArrayForEach(item, list) {
    const cJSON *text = cJSON_GetObjectItemCaseSensitive(item, "body");
    const cJSON *num = cJSON_GetObjectItemCaseSensitive(item, "id");
    (*count)++;
    if(!cJSON_IsString(text) || !strstr(text->valuestring, marker) ||
       !comment_id_ok(num) || !written_by(item, by))
      continue;
    if(all && !ids_add(all, num->valuedouble)) {
      cJSON_Delete(list);
      return bpi_err_set(err, BPE_NOMEM, 0, "comment");
    }
    if(*lowest >= 0 && num->valuedouble >= *lowest)
      continue;
    char *copy = strdup(text->valuestring);
    if(!copy) {
      cJSON_Delete(list);
      return bpi_err_set(err, BPE_NOMEM, 0, "comment");
    }
    free(*body);
    *body = copy;
    *lowest = num->valuedouble;
  }
  cJSON_Delete(list);
  return BP_OK;
}

/* Our comments with the marker, all pages: the lowest id (-1: none) and
 * its text; every one's id in *all when not NULL. */
static bp_code lowest_ours(const struct bp_forge_target *t,
                           const struct bp_comment_transport *tr,
                           const char *marker,
                           const struct bp_comment_author *by,
                           double *lowest, char **body,
                           struct forge_ids *all,
                           struct bp_comment_posted *res, struct bp_err *err)
{
  struct bp_buf url;
  struct bp_http_resp resp = {.status = 0};
  bp_code rc = BP_OK;
  bpi_buf_init(&url);
  bpi_buf_init(&resp.body);
  *lowest = -1;
  *body = NULL;
  for(unsigned page = 1; !rc && page <= MAX_PAGES; page++) {
    size_t count = 0;
    bpi_buf_reset(&url);
    rc = bpi_comment_list_url(t, page, &url, err);
    if(!rc)
      rc = send_one(t, tr, "GET", url.data, NULL, &resp, res, err);
    if(!rc)
      rc = lowest_on_page(resp.body.data ? resp.body.data : "",
                          resp.body.len, marker, by, lowest, body, all,
                          &count, err);
    if(!rc && count < 100)
      break;
  }
  bpi_buf_cleanup(&resp.body);
  bpi_buf_cleanup(&url);
  return rc;
}

/* One write (PATCH/PUT with body, or DELETE without) of comment id. */
static bp_code write_comment(const struct bp_forge_target *t,
                             const struct bp_comment_transport *tr,
                             const char *method, const char *id,
                             const struct bp_buf *body,
                             struct bp_http_resp *resp,
                             struct bp_comment_posted *res,
                             struct bp_err *err)
{
  struct bp_buf url;
  bpi_buf_init(&url);
  bp_code rc = bpi_comment_write_url(t, id, &url, err);
  if(!rc)
    rc = send_one(t, tr, method, url.data, body, resp, res, err);
  bpi_buf_cleanup(&url);
  return rc;
}

/* Delete the comment this job made, now a duplicate; one already gone
 * (404: a retried DELETE whose first answer was lost) is deleted. */
static void delete_mine(const struct bp_forge_target *t,
                        const struct bp_comment_transport *tr,
                        struct bp_comment_posted *res)
{
  struct bp_http_resp resp = {.status = 0};
  struct bp_err err = {0};
  bpi_buf_init(&resp.body);
  bp_code rc = write_comment(t, tr, "DELETE", res->duplicate, NULL, &resp,
                             res, &err);
  if(rc == BPE_HTTP && resp.status == 404)
    rc = BP_OK;
  res->duplicate_kept = rc != BP_OK;
  if(rc)
    bpi_err_set(&res->warning, rc, 0, "comment %s, a duplicate, not "
                "deleted (%s)", res->duplicate, err.msg);
  bpi_buf_cleanup(&resp.body);
}

/* Edit the surviving comment (res->id) with body: its page in res->url
 * (GitHub's html_url). */
static bp_code edit_survivor(const struct bp_forge_target *t,
                             const struct bp_comment_transport *tr,
                             const struct bp_buf *body,
                             struct bp_comment_posted *res,
                             struct bp_err *err)
{
  struct bp_http_resp resp = {.status = 0};
  bpi_buf_init(&resp.body);
  bp_code rc = write_comment(t, tr, t->forge == BP_FORGE_GITLAB ? "PUT" :
                             "PATCH", res->id, body, &resp, res, err);
  if(!rc) {   /* the survivor's page now, none on GitLab */
    free(res->url);
    res->url = NULL;
    cJSON *j = cJSON_ParseWithLength(resp.body.data ? resp.body.data : "",
                                     resp.body.len);
    const cJSON *html = cJSON_GetObjectItemCaseSensitive(j, "html_url");
    if(cJSON_IsString(html) && bpi_text_web_url(html->valuestring))
      res->url = strdup(html->valuestring);
    cJSON_Delete(j);
  }
  bpi_buf_cleanup(&resp.body);
  return rc;
}

/* Whether the comment that survives is another (lower id) than the one
 * just made (res->id): then res->id is the survivor's, res->duplicate
 * ours, *text the survivor's text. */
static bool another_survives(double lowest, char **text,
                             struct bp_comment_posted *res)
{
  struct bp_buf id;
  if(lowest < 0 || lowest >= strtod(res->id, NULL))
    return false;
  bpi_buf_init(&id);
  bpi_buf_printf(&id, "%.0f", lowest);
  if(bpi_buf_failed(&id)) {
    free(*text);
    *text = NULL;
    return false;
  }
  res->duplicate = res->id;
  res->id = id.data;
  return true;
}

/* Two jobs for one request that listed the comments before either made
 * one have each made one.  List again: of our comments with the marker,
 * the lowest id survives.  The job that made it does nothing more; the
 * other edits it with its own comparison unless it shows a newer one
 * (res->left, as the edit decides: shows_newer), then deletes its own.
 * Nothing here fails the post: what went wrong is res->warning, and the
 * comment just made stays. */
static void settle_duplicates(const struct bp_forge_target *t,
                              const struct bp_comment_transport *tr,
                              const char *marker,
                              const struct bp_run_when *mine,
                              const struct bp_buf *body, struct forge_me *me,
                              const struct bp_http_resp *posted,
                              struct bp_comment_posted *res)
{
  struct bp_comment_author by;
  struct bp_err err = {0};
  char *login = NULL, *text = NULL;
  double lowest;
  bp_code rc = BP_OK;
  if(!author_of(t, posted, &by, &login)) {
    if(!me->known)
      rc = who_am_i(t, tr, me, res, &err);
    by = me->author;
  }
  if(!rc)
    rc = lowest_ours(t, tr, marker, &by, &lowest, &text, NULL, res, &err);
  if(!rc && another_survives(lowest, &text, res)) {
    if(shows_newer(t, text, mine, res)) {
      free(res->url);   /* ours, about to go */
      res->url = NULL;
    }
    else
      rc = edit_survivor(t, tr, body, res, &err);
    if(rc) {   /* ours stays, beside the one that could not be edited */
      free(res->id);
      res->id = res->duplicate;
      res->duplicate = NULL;
    }
    else {
      res->updated = !res->left;
      delete_mine(t, tr, res);
    }
  }
  if(rc)
    bpi_err_set(&res->warning, rc, 0, "%s; two comments may remain",
                err.msg);
  free(text);
  free(login);
}

/* Delete each of ids but the survivor's (res->id): res->duplicate the
 * last one deleted, a failure res->warning. */
static void delete_others(const struct bp_forge_target *t,
                          const struct bp_comment_transport *tr,
                          const struct forge_ids *ids,
                          struct bp_comment_posted *res)
{
  double keep = strtod(res->id, NULL);
  for(size_t i = 0; i < ids->n; i++) {
    struct bp_buf id;
    if(ids->v[i] == keep)
      continue;
    bpi_buf_init(&id);
    bpi_buf_printf(&id, "%.0f", ids->v[i]);
    if(bpi_buf_failed(&id))
      return;
    free(res->duplicate);
    res->duplicate = id.data;
    delete_mine(t, tr, res);
    if(res->duplicate_kept)
      return;
  }
}

/* A POST whose answer was lost made a comment that cannot be told from
 * one another job of this account made at the same moment (both carry
 * the marker): of our marked comments the lowest id survives, shows
 * markdown unless it shows a newer comparison (res->left), and the
 * others are deleted, ours among them.  The other job, settling its own
 * (settle_duplicates), keeps the same survivor, and a DELETE of a
 * comment already gone counts as done.  A failure is res->warning. */
static void settle_lost_answer(const struct bp_forge_target *t,
                               const struct bp_comment_transport *tr,
                               const char *marker, const char *markdown,
                               const struct bp_run_when *mine,
                               const struct bp_buf *body,
                               struct forge_me *me,
                               struct bp_comment_posted *res)
{
  struct forge_ids ids = {.v = NULL};
  struct bp_buf id;
  struct bp_err err = {0};
  char *text = NULL;
  double lowest;
  bpi_buf_init(&id);
  bp_code rc = lowest_ours(t, tr, marker, &me->author, &lowest, &text, &ids,
                           res, &err);
  if(!rc && lowest >= 0) {
    bpi_buf_printf(&id, "%.0f", lowest);
    rc = bpi_buf_failed(&id) ? bpi_err_set(&err, BPE_NOMEM, 0, "comment")
                             : BP_OK;
  }
  if(!rc && lowest >= 0) {
    free(res->id);
    res->id = id.data;
    id.data = NULL;
    if(!shows_newer(t, text, mine, res) && strcmp(text, markdown)) {
      rc = edit_survivor(t, tr, body, res, &err);
      res->updated = !rc;
    }
    if(!rc)
      delete_others(t, tr, &ids, res);
  }
  if(rc)
    bpi_err_set(&res->warning, rc, 0, "%s; the comment may not show this "
                "comparison, or two may remain", err.msg);
  bpi_buf_cleanup(&id);
  free(ids.v);
  free(text);
}

bp_code bpi_comment_post(const struct bp_forge_target *t,
                         const char *markdown,
                         const struct bp_comment_transport *tr,
                         struct bp_comment_posted *res, struct bp_err *err)
{
  struct bp_buf url, body;
  struct bp_http_resp resp = {.status = 0};
  char *marker = bpi_comment_find_marker(markdown), *id = NULL;
  struct forge_me me = {.known = false};
  struct bp_comment_compared compared;   /* markdown's own (mine) */
  bpi_comment_find_compared(markdown, &compared);
  const struct bp_run_when mine = bpi_comment_compared_when(&compared);
  bp_code rc = BP_OK;
  bpi_buf_init(&url);
  bpi_buf_init(&body);
  bpi_buf_init(&resp.body);
  if(!marker) {
    rc = bpi_err_set(err, BPE_INVAL, 0, "comment: the Markdown has no "
                     "benchprof marker (write it with benchprof compare)");
    goto out;
  }
  bpi_comment_body_json(&body, markdown);
  if(bpi_buf_failed(&body)) {
    rc = bpi_err_set(err, BPE_NOMEM, 0, "comment");
    goto out;
  }
  rc = edit_ours(t, tr, marker, &mine, &body, &me, &id, &url, &resp, res,
                 err);
  if(rc)
    goto out;
  if(res->left) {   /* a newer comparison is shown: nothing written */
    res->id = id;
    id = NULL;
    goto out;
  }
  char *found = NULL;
  if(!id)
    rc = post_new(t, tr, url.data, &body, marker, &me, &resp, &found, res,
                  err);
  if(!rc && found) {   /* the lost answer's comment, or a twin's */
    res->updated = false;
    res->answer_lost = true;
    res->id = found;
    settle_lost_answer(t, tr, marker, markdown, &mine, &body, &me, res);
    goto out;
  }
  if(rc)
    goto out;
  res->updated = id != NULL;
  char *new_id = NULL;
  size_t ignored;
  /* the answer is the comment: its id, in a one-element list for find */
  struct bp_buf wrapped;
  bpi_buf_init(&wrapped);
  bpi_buf_adds(&wrapped, "[");
  bpi_buf_add(&wrapped, resp.body.data ? resp.body.data : "",
              resp.body.len);
  bpi_buf_adds(&wrapped, "]");
  struct bp_err quiet = {0};
  if(!bpi_buf_failed(&wrapped) &&
     !bpi_comment_find(wrapped.data, wrapped.len, "", &new_id, &ignored,
                       &quiet) && new_id)
    res->id = new_id;
  else
    res->id = id ? strdup(id) : NULL;
  if(res->id == new_id)
    new_id = NULL;
  free(new_id);
  /* GitHub's answer has the comment's page: the commit status links it */
  cJSON *answer = cJSON_ParseWithLength(resp.body.data ? resp.body.data : "",
                                        resp.body.len);
  const cJSON *html = cJSON_GetObjectItemCaseSensitive(answer, "html_url");
  /* only http(s) pages are linked */
  if(cJSON_IsString(html) && bpi_text_web_url(html->valuestring))
    res->url = strdup(html->valuestring);
  cJSON_Delete(answer);
  bpi_buf_cleanup(&wrapped);
  /* a comment made now may have a twin another job made at once */
  if(!res->updated && res->id)
    settle_duplicates(t, tr, marker, &mine, &body, &me, &resp, res);
out:
  free(me.login);
  free(id);
  free(marker);
  bpi_buf_cleanup(&resp.body);
  bpi_buf_cleanup(&body);
  bpi_buf_cleanup(&url);
  return rc;
}

/* ------------------------------------------------------ commit status */

static bool commit_hash(const char *sha)
{
  size_t n = sha ? strspn(sha, "0123456789abcdef") : 0;
  return sha && !sha[n] && (n == 40 || n == 64);
}

bp_code bpi_comment_pr_head(const struct bp_forge_target *t,
                            const struct bp_comment_transport *tr,
                            char **sha, char **merge, struct bp_err *err)
{
  struct bp_buf url;
  struct bp_http_resp resp = {.status = 0};
  struct bp_comment_posted ignored = {.id = NULL};
  bool gitlab = t->forge == BP_FORGE_GITLAB;
  *sha = NULL;
  if(merge)
    *merge = NULL;
  bpi_buf_init(&url);
  bpi_buf_init(&resp.body);
  bp_code rc = check_target(t, err);
  if(!rc) {
    add_base(&url, t);
    bpi_buf_printf(&url, gitlab ? "/merge_requests/%s" : "/pulls/%s",
                   t->number);
    bpi_buf_addc(&url, '\0');
    rc = bpi_buf_failed(&url) ? bpi_err_set(err, BPE_NOMEM, 0, "comment")
      : send_one(t, tr, "GET", url.data, NULL, &resp, &ignored, err);
  }
  if(!rc) {
    cJSON *j = cJSON_ParseWithLength(resp.body.data ? resp.body.data : "",
                                     resp.body.len);
    const cJSON *side = gitlab ? j : cJSON_GetObjectItemCaseSensitive(j,
                                                                      "head");
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(side, "sha");
    if(cJSON_IsString(h) && commit_hash(h->valuestring))
      rc = (*sha = strdup(h->valuestring)) ? BP_OK
        : bpi_err_set(err, BPE_NOMEM, 0, "comment");
    else
      rc = bpi_err_set(err, BPE_FORMAT, 0, "GET %s: no %s commit hash in "
                       "the answer", url.data, gitlab ? "sha" : "head.sha");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "merge_commit_sha");
    if(!rc && merge && cJSON_IsString(m) && commit_hash(m->valuestring) &&
       !(*merge = strdup(m->valuestring)))
      rc = bpi_err_set(err, BPE_NOMEM, 0, "comment");
    cJSON_Delete(j);
  }
  bpi_buf_cleanup(&resp.body);
  bpi_buf_cleanup(&url);
  return rc;
}

bp_code bpi_comment_status_url(const struct bp_forge_target *t,
                               const char *sha, struct bp_buf *url,
                               struct bp_err *err)
{
  bp_code rc = check_target(t, err);
  if(rc)
    return rc;
  if(!commit_hash(sha))
    return bpi_err_set(err, BPE_INVAL, 0, "commit status: '%s' is not a "
                       "full lowercase commit hash", sha ? sha : "");
  add_base(url, t);
  bpi_buf_printf(url, "/statuses/%s", sha);
  bpi_buf_addc(url, '\0');
  return bpi_buf_failed(url) ? bpi_err_set(err, BPE_NOMEM, 0, "status") :
                               BP_OK;
}

void bpi_comment_status_body(const struct bp_forge_target *t, bool failed,
                             const char *description, const char *target_url,
                             struct bp_buf *out)
{
  bool gitlab = t->forge == BP_FORGE_GITLAB;
  char desc[141 * 4];
  /* 140 characters, cut at a character's start */
  size_t n = 0, chars = 0;
  const char *d = description ? description : "";
  while(d[n] && chars < 140 && n + 4 < sizeof(desc)) {
    n++;
    while(((unsigned char)d[n] & 0xc0) == 0x80)
      n++;
    chars++;
  }
  memcpy(desc, d, n);
  desc[n] = '\0';
  bpi_buf_adds(out, "{\"state\":");
  bpi_buf_json_str(out, failed ? (gitlab ? "failed" : "failure") :
                   "success");
  bpi_buf_printf(out, ",\"%s\":", gitlab ? "name" : "context");
  bpi_buf_json_str(out, t->status_context ? t->status_context
                                           : BP_COMMENT_STATUS_CONTEXT);
  bpi_buf_adds(out, ",\"description\":");
  bpi_buf_json_str(out, desc);
  if(bpi_text_web_url(target_url)) {
    bpi_buf_adds(out, ",\"target_url\":");
    bpi_buf_json_str(out, target_url);
  }
  bpi_buf_addc(out, '}');
}

char *bpi_comment_status_context(const char *markdown, bool *nomem)
{
  const char *start = strstr(markdown, "<!-- benchprof:comment ");
  bool has = start && strstr(start, " -->");
  char *marker = has ? bpi_comment_find_marker(markdown) : NULL;
  bool named = marker && strstr(marker, BP_COMMENT_MARKER_SUITE);
  char *suite = named ? bpi_comment_marker_suite(marker) : NULL;
  char *context = NULL;
  if(suite) {
    struct bp_buf b;
    bpi_buf_init(&b);
    bpi_buf_printf(&b, "%s/%s", BP_COMMENT_STATUS_CONTEXT, suite);
    bpi_buf_addc(&b, '\0');
    if(bpi_buf_failed(&b))
      bpi_buf_cleanup(&b);
    context = b.data;
  }
  *nomem = (has && !marker) || (named && !context);
  free(suite);
  free(marker);
  return context;
}

bp_code bpi_comment_post_status(const struct bp_forge_target *t,
                                const char *sha, bool failed,
                                const char *description,
                                const char *target_url,
                                const struct bp_comment_transport *tr,
                                struct bp_err *err)
{
  struct bp_buf url, body;
  struct bp_http_resp resp = {.status = 0};
  struct bp_comment_posted ignored = {.id = NULL};
  bpi_buf_init(&url);
  bpi_buf_init(&body);
  bpi_buf_init(&resp.body);
  bp_code rc = bpi_comment_status_url(t, sha, &url, err);
  if(!rc) {
    bpi_comment_status_body(t, failed, description, target_url, &body);
    rc = bpi_buf_failed(&body) ? bpi_err_set(err, BPE_NOMEM, 0, "status")
      : send_one(t, tr, "POST", url.data, &body, &resp, &ignored, err);
  }
  bpi_buf_cleanup(&resp.body);
  bpi_buf_cleanup(&body);
  bpi_buf_cleanup(&url);
  return rc;
}

/* ------------------------------------------------------ the verdict line */

bool bpi_comment_verdict_line(struct bp_buf *b,
                              const struct bp_comment_verdict *v)
{
  if(!commit_hash(v->head))
    return false;
  bpi_buf_printf(b, BP_COMMENT_VERDICT_PREFIX "head=%s regressions=%zu "
                 "unconfirmed=%zu -->\n", v->head, v->regressions,
                 v->unconfirmed);
  return true;
}

bool bpi_comment_find_verdict(const char *text,
                              struct bp_comment_verdict *v)
{
  const char *s = text ? strstr(text, BP_COMMENT_VERDICT_PREFIX) : NULL;
  const char *last = NULL;
  memset(v, 0, sizeof(*v));
  /* the last one: the line is added after the Markdown */
  for(; s; s = strstr(s + 1, BP_COMMENT_VERDICT_PREFIX))
    last = s;
  if(!last)
    return false;
  struct bp_comment_verdict got = {.regressions = 0};
  int end = 0;
  /* counts of at most 9 digits: never past a size_t */
  if(sscanf(last + strlen(BP_COMMENT_VERDICT_PREFIX), "head=%64[0-9a-f] "
            "regressions=%9zu unconfirmed=%9zu -->%n", got.head,
            &got.regressions, &got.unconfirmed, &end) != 3 || !end ||
     !commit_hash(got.head))
    return false;
  *v = got;
  return true;
}

void bpi_comment_verdict_description(char *out, size_t n,
                                     const struct bp_comment_verdict *v)
{
  snprintf(out, n, "%zu regression%s confirmed, %zu unconfirmed",
           v->regressions, v->regressions == 1 ? "" : "s", v->unconfirmed);
}

static bool same_verdict(const struct bp_comment_verdict *a,
                         const struct bp_comment_verdict *b)
{
  return !strcmp(a->head, b->head) && a->regressions == b->regressions &&
         a->unconfirmed == b->unconfirmed;
}

/* Comment id's text now (GET of it alone: GitHub /issues/comments/ID,
 * GitLab /merge_requests/IID/notes/ID; it is ours, so no list and no GET
 * /user), malloc'd in *text; NULL when it is gone (404) or has none. */
static bp_code read_comment(const struct bp_forge_target *t,
                            const struct bp_comment_transport *tr,
                            const char *id, char **text, struct bp_err *err)
{
  struct bp_comment_posted ignored = {.id = NULL};
  struct bp_http_resp resp = {.status = 0};
  struct bp_buf url;
  bpi_buf_init(&url);
  bpi_buf_init(&resp.body);
  *text = NULL;
  bp_code rc = bpi_comment_write_url(t, id, &url, err);
  if(!rc)
    rc = send_one(t, tr, "GET", url.data, NULL, &resp, &ignored, err);
  if(rc == BPE_HTTP && resp.status == 404) {
    bpi_err_clear(err);
    rc = BP_OK;
  }
  else if(!rc) {
    cJSON *j = cJSON_ParseWithLength(resp.body.data ? resp.body.data : "",
                                     resp.body.len);
    const cJSON *body = cJSON_GetObjectItemCaseSensitive(j, "body");
    if(cJSON_IsString(body) && !(*text = strdup(body->valuestring)))
      rc = bpi_err_set(err, BPE_NOMEM, 0, "comment");
    cJSON_Delete(j);
  }
  bpi_buf_cleanup(&resp.body);
  bpi_buf_cleanup(&url);
  return rc;
}

/* ------------------------------------------------- the outdated note */

void bpi_comment_outdated_note(struct bp_buf *b, enum bp_forge forge,
                               const char *head, const char *now)
{
  bpi_buf_printf(b, "_This comparison is of `%.7s`; the %s's head is now "
                 "`%.7s`, whose comparison has not landed yet._", head,
                 forge == BP_FORGE_GITLAB ? "merge request" : "pull request",
                 now);
}

/* Where the text a reader sees begins: after the hidden lines at the top
 * (the marker, the compared line), which must stay first. */
static size_t hidden_top(const char *text)
{
  static const char hidden[] = "<!-- benchprof:";
  size_t at = 0;
  while(!strncmp(text + at, hidden, sizeof(hidden) - 1)) {
    const char *nl = strchr(text + at, '\n');
    if(!nl)
      return strlen(text);
    at = (size_t)(nl - text) + 1;
  }
  return at;
}

void bpi_comment_mark_outdated(struct bp_buf *out, const char *posted,
                               enum bp_forge forge, const char *head,
                               const char *now)
{
  size_t top = hidden_top(posted);
  bpi_buf_add(out, posted, top);
  if(top && posted[top - 1] != '\n')
    bpi_buf_addc(out, '\n');
  bpi_comment_outdated_note(out, forge, head, now);
  bpi_buf_adds(out, "\n\n");
  bpi_buf_adds(out, posted + top);
}

/* What the comment shows, read back after this job wrote it. */
enum comment_seen {
  SEEN_OURS,    /* our comparison */
  SEEN_OLDER,   /* an older one: written again */
  SEEN_OTHER    /* a newer one, or one neither older nor newer: left */
};

static bool same_compared(const struct bp_comment_compared *a,
                          const struct bp_comment_compared *b)
{
  return !strcmp(a->head, b->head) && !strcmp(a->commit_time,
                                              b->commit_time) &&
         !strcmp(a->end_time, b->end_time);
}

/* Whether the forge says head (a compared commit) is the request's head,
 * or the merge commit it made of it: *known false when it cannot say.
 * *now (when not NULL): the request's head as the forge said it,
 * malloc'd, or NULL when it cannot say. */
static bool still_head(const struct bp_forge_target *t,
                       const struct bp_comment_transport *tr,
                       const char *head, bool *known, char **now)
{
  char *sha = NULL, *merge = NULL;
  struct bp_err quiet = {0};
  *known = !bpi_comment_pr_head(t, tr, &sha, &merge, &quiet);
  bool is = *known && (!strcmp(sha, head) || (merge && !strcmp(merge,
                                                                head)));
  if(now)
    *now = sha;
  else
    free(sha);
  free(merge);
  return is;
}

/* How the comparison in text orders against ours (mine: its compared
 * line; verdict, may be NULL, its verdict line).  The same commit's are
 * ordered by runorder.h (the later run); another commit's is older only
 * while the forge says ours is the request's head, since a push after
 * this job's head check makes the other job's the current one (when the
 * forge cannot say, committer times decide, as the edit does). */
static enum comment_seen comment_seen(const struct bp_forge_target *t,
                                      const struct bp_comment_transport *tr,
                                      const char *text,
                                      const struct bp_comment_compared *mine,
                                      const struct bp_comment_verdict *verdict,
                                      struct bp_comment_compared *theirs)
{
  struct bp_comment_verdict v;
  bool has_verdict = bpi_comment_find_verdict(text, &v);
  if(!bpi_comment_find_compared(text, theirs))
    return SEEN_OLDER;   /* an older benchprof's: replaced, as the edit */
  if(same_compared(theirs, mine))
    return !verdict || !has_verdict || same_verdict(&v, verdict) ?
           SEEN_OURS : SEEN_OTHER;
  const struct bp_run_when ours = bpi_comment_compared_when(mine);
  const struct bp_run_when when = bpi_comment_compared_when(theirs);
  bool known = false;
  if(strcmp(theirs->head, mine->head) &&
     still_head(t, tr, mine->head, &known, NULL))
    return SEEN_OLDER;
  if(known && strcmp(theirs->head, mine->head))
    return SEEN_OTHER;   /* the request has moved on from ours */
  return bpi_run_newer(&ours, &when) ? SEEN_OLDER : SEEN_OTHER;
}

/* The verdict the comment's text shows, when it is of set's head and
 * another than set (another job of the head edited it): *now. */
static bool other_verdict(const char *text,
                          const struct bp_comment_verdict *set,
                          struct bp_comment_verdict *now)
{
  return bpi_comment_find_verdict(text, now) &&
         !strcmp(now->head, set->head) && !same_verdict(now, set);
}

/* Write posted into comment id again (PATCH, GitLab's PUT). */
static bp_code write_again(const struct bp_forge_target *t,
                           const struct bp_comment_transport *tr,
                           const char *id, const char *posted,
                           struct bp_err *err)
{
  struct bp_comment_posted ignored = {.id = NULL};
  struct bp_http_resp resp = {.status = 0};
  struct bp_buf body;
  bpi_buf_init(&body);
  bpi_buf_init(&resp.body);
  bpi_comment_body_json(&body, posted);
  bp_code rc = bpi_buf_failed(&body) ? bpi_err_set(err, BPE_NOMEM, 0,
                                                   "comment")
    : write_comment(t, tr, t->forge == BP_FORGE_GITLAB ? "PUT" : "PATCH", id,
                    &body, &resp, &ignored, err);
  bpi_buf_cleanup(&resp.body);
  bpi_buf_cleanup(&body);
  return rc;
}

/* The commit status of verdict v, linking target_url. */
static bp_code set_status(const struct bp_forge_target *t,
                          const struct bp_comment_transport *tr,
                          const struct bp_comment_verdict *v,
                          const char *target_url,
                          struct bp_comment_settled *done,
                          struct bp_err *err)
{
  char desc[160];
  bpi_comment_verdict_description(desc, sizeof(desc), v);
  bp_code rc = bpi_comment_post_status(t, v->head, v->regressions > 0, desc,
                                       target_url, tr, err);
  if(!rc) {
    done->set = *v;
    done->posts++;
  }
  return rc;
}

/* One read-back of the comment (text; NULL: gone): what to do next.
 * guard: order its comparison against ours (posted has a compared
 * line).  *shown: the verdict to set as the status before the next read
 * when another job of our head is followed. */
enum settle_next { SETTLE_DONE, SETTLE_WRITE, SETTLE_FOLLOW, SETTLE_MARK };

/* Whether the request was pushed to since this job found its head
 * current (t->request_head; without it: whether the compared commit,
 * head, is neither the head nor its merge commit now); *now: the head
 * the forge names now, malloc'd, when pushed to.  false when the forge
 * cannot say. */
static bool pushed_since(const struct bp_forge_target *t,
                         const struct bp_comment_transport *tr,
                         const char *head, char **now)
{
  bool known = false;
  *now = NULL;
  if(!t->request_head) {
    bool is = still_head(t, tr, head, &known, now);
    if(is || !known) {
      free(*now);
      *now = NULL;
    }
    return *now != NULL;
  }
  struct bp_err quiet = {0};
  if(!bpi_comment_pr_head(t, tr, now, NULL, &quiet) &&
     strcmp(*now, t->request_head))
    return true;
  free(*now);
  *now = NULL;
  return false;
}

/* The comment (text) shows our comparison (ours): whether it must be
 * marked as not the request's head's.  Only a job that knew its head
 * current when it began asks again (an older head's job posts nothing):
 * a push since, whose job read the comment back before our slower edit
 * landed, leaves our comparison there as if it were the new head's.  In
 * *mark then: posted with the note (bpi_comment_mark_outdated), unless
 * text carries that note already. */
static enum settle_next outdated_step(const struct bp_forge_target *t,
                                      const struct bp_comment_transport *tr,
                                      const char *text, const char *posted,
                                      const struct bp_comment_compared *ours,
                                      struct bp_buf *mark,
                                      struct bp_comment_settled *done)
{
  char *now = NULL;
  if(!t->head_is_current || !pushed_since(t, tr, ours->head, &now))
    return SETTLE_DONE;
  snprintf(done->now_head, sizeof(done->now_head), "%s", now);
  bpi_buf_reset(mark);
  bpi_comment_outdated_note(mark, t->forge, ours->head, now);
  bpi_buf_addc(mark, '\0');
  bool marked = !bpi_buf_failed(mark) && strstr(text, mark->data);
  bpi_buf_reset(mark);
  if(!marked) {
    bpi_comment_mark_outdated(mark, posted, t->forge, ours->head, now);
    bpi_buf_addc(mark, '\0');
    /* no room for the note: the forge would refuse the edit */
    done->unmarked = !bpi_buf_failed(mark) &&
                     mark->len > BP_COMMENT_MAX_CHARS + 1;   /* + NUL */
  }
  free(now);
  done->outdated = marked || done->unmarked;   /* else once marked */
  return done->outdated ? SETTLE_DONE : SETTLE_MARK;
}

static enum settle_next settle_step(const struct bp_forge_target *t,
                                    const struct bp_comment_transport *tr,
                                    const char *text, const char *posted,
                                    bool guard,
                                    const struct bp_comment_compared *ours,
                                    const struct bp_comment_verdict *mine,
                                    struct bp_comment_verdict *shown,
                                    struct bp_buf *mark,
                                    struct bp_comment_settled *done)
{
  struct bp_comment_compared theirs;
  struct bp_comment_verdict now;
  if(!text)
    return SETTLE_DONE;   /* gone: nothing to follow */
  if(guard) {
    enum comment_seen seen = comment_seen(t, tr, text, ours, mine, &theirs);
    if(seen == SEEN_OURS)
      return outdated_step(t, tr, text, posted, ours, mark, done);
    if(seen == SEEN_OLDER)
      return SETTLE_WRITE;
    done->overtaken = true;
    done->outdated = false;   /* not ours there any more */
    done->shown = theirs;
  }
  if(!mine || !other_verdict(text, shown, &now))
    return SETTLE_DONE;
  /* another job of our head wrote its comparison after this status's
   * verdict was read: the status says what the comment shows */
  *shown = now;
  done->followed = true;
  return SETTLE_FOLLOW;
}

bp_code bpi_comment_settle(const struct bp_forge_target *t,
                           const char *comment_id, const char *posted,
                           const struct bp_comment_verdict *mine,
                           const char *target_url,
                           const struct bp_comment_transport *tr,
                           struct bp_comment_settled *done,
                           struct bp_err *err)
{
  struct bp_comment_compared ours;
  struct bp_comment_verdict shown = {.regressions = 0};
  /* a comparison without its head cannot be ordered: not guarded */
  bool guard = posted && bpi_comment_find_compared(posted, &ours) &&
               ours.head[0];
  bool status = mine != NULL;
  bp_code rc = BP_OK;
  struct bp_buf mark;
  bpi_buf_init(&mark);
  memset(done, 0, sizeof(*done));
  if(mine)
    shown = *mine;
  for(unsigned round = 1; ; round++) {
    if(status && (rc = set_status(t, tr, &shown, target_url, done, err)))
      break;
    if(!comment_id || (!guard && !mine))
      break;
    if(guard)   /* an edit sent before ours landed has landed by now */
      wait_ms(t->settle_ms);
    char *text = NULL;
    rc = read_comment(t, tr, comment_id, &text, err);
    enum settle_next next = rc ? SETTLE_DONE :
      settle_step(t, tr, text, posted, guard, &ours, mine, &shown, &mark,
                  done);
    free(text);
    if(next == SETTLE_DONE)
      break;
    if(round >= BP_COMMENT_STATUS_ROUNDS) {
      done->unsettled = true;
      if(next == SETTLE_MARK)   /* no round left for the mark */
        done->outdated = done->unmarked = true;
      break;
    }
    status = mine != NULL;
    if(next == SETTLE_WRITE) {
      /* another job's older comparison landed after ours: ours again */
      if((rc = write_again(t, tr, comment_id, posted, err)))
        break;
      done->reposts++;
      done->overtaken = false;
      done->outdated = false;
      if(mine)
        shown = *mine;
    }
    else if(next == SETTLE_MARK) {
      if(bpi_buf_failed(&mark)) {
        rc = bpi_err_set(err, BPE_NOMEM, 0, "comment");
        break;
      }
      /* our own head's status stands; the new head's is its job's */
      if((rc = write_again(t, tr, comment_id, mark.data, err)))
        break;
      done->outdated = true;
      status = false;
    }
  }
  bpi_buf_cleanup(&mark);
  return rc;
}

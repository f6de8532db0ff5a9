/* forge: posting the pull request comment (comment.h) through the
 * forge's REST API, GitHub or GitLab, with http.c: list the comments page
 * by page, find ours by its marker, edit it, else create one.  Requests
 * and answers are built and read here; the token goes only into the
 * Authorization header. */
#ifndef BP_LIB_FORGE_H
#define BP_LIB_FORGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "benchprof/benchprof.h"
#include "buf.h"
#include "http.h"

enum bp_forge {
  BP_FORGE_GITHUB = 0,
  BP_FORGE_GITLAB
};

struct bp_forge_target {
  enum bp_forge forge;
  const char *api_url;   /* NULL: https://api.github.com or
                            https://gitlab.com/api/v4 */
  const char *repo;      /* GitHub "owner/name", GitLab project id */
  const char *number;    /* pull request number, merge request iid */
  const char *token;     /* never printed */
  bool job_token;        /* GitLab: JOB-TOKEN instead of PRIVATE-TOKEN */
};

/* The request that lists page (1, 2, ...) of the comments, 100 a page. */
bp_code bpi_comment_list_url(const struct bp_forge_target *t, unsigned page,
                             struct bp_buf *url, struct bp_err *err);
/* The URL that creates a comment (POST), or updates comment id (PATCH on
 * GitHub, PUT on GitLab) when id is not NULL. */
bp_code bpi_comment_write_url(const struct bp_forge_target *t,
                              const char *id, struct bp_buf *url,
                              struct bp_err *err);
/* {"body": markdown} */
void bpi_comment_body_json(struct bp_buf *b, const char *markdown);
/* Look for marker in a list answer (a JSON array of {id, body}).  *id:
 * the first match's id (malloc'd) or NULL; *count: entries on the page. */
bp_code bpi_comment_find(const char *json, size_t len, const char *marker,
                         char **id, size_t *count, struct bp_err *err);

/* How requests go out. */
struct bp_comment_transport {
  bp_code (*send)(const struct bp_http_opts *o,
                  const struct bp_http_req *req,
                  struct bp_http_resp *resp, struct bp_err *err);
  const struct bp_http_opts *http;
};

struct bp_comment_posted {
  char *id;              /* the comment's id when the answer had one */
  bool updated;          /* an existing comment was edited */
  unsigned requests;
};

void bpi_comment_posted_cleanup(struct bp_comment_posted *p);

/* Put markdown on the pull request: list the comments page by page, edit
 * the one with markdown's marker, else create one. */
bp_code bpi_comment_post(const struct bp_forge_target *t,
                         const char *markdown,
                         const struct bp_comment_transport *tr,
                         struct bp_comment_posted *res, struct bp_err *err);

#endif

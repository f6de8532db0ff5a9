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
#include "comment.h"   /* the compared line (a comment's comparison) */
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
  /* the forge said just now that the comparison's head is the request's
   * head (bpi_comment_pr_head): a comment about any other commit is out
   * of date, whatever its times say (a force-push back to an older
   * commit, a clock ahead), and only a later run of the same commit is
   * left alone */
  bool head_is_current;
  /* with head_is_current: the request's head commit the forge named
   * then (never its merge commit, which the forge makes again when the
   * base branch moves), so that a push since can be told after this
   * job's edit; NULL: unknown (the compared commit is then looked for
   * among the head and its merge commit) */
  const char *request_head;
  /* the commit status's context (GitLab: name); NULL:
   * BP_COMMENT_STATUS_CONTEXT (bpi_comment_status_context) */
  const char *status_context;
  /* bpi_comment_settle: how long after writing the comment it is read
   * back, so that another job's edit sent before ours landed has landed
   * too (milliseconds; 0: at once) */
  long settle_ms;
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
 * the first match's id (malloc'd) or NULL; *count: entries on the page.
 * Any author: for reading an answer, never for choosing what to edit. */
bp_code bpi_comment_find(const char *json, size_t len, const char *marker,
                         char **id, size_t *count, struct bp_err *err);

/* The account the token writes as: only its comments are edited, since
 * the marker is plain text anyone can put in a comment of their own. */
struct bp_comment_author {
  enum bp_forge forge;
  const char *login;   /* GitHub: user.login (GET /user), or NULL */
  bool any_bot;        /* GitHub: GET /user refused (403) an installation
                          token, GITHUB_TOKEN among them: an author whose
                          user.type is "Bot" and login ends in "[bot]" */
  bool has_id;         /* GitLab: author.id is id (GET /user) */
  double id;
  /* comments whose edit the forge refused (another App's, under
   * any_bot): not ours whoever wrote them */
  const double *refused;
  size_t nrefused;
};

/* bpi_comment_find, the first match written by *by; *foreign (when not
 * NULL) counts the matches written by others, left alone; *body (when
 * not NULL) is that match's text (malloc'd), NULL when none. */
bp_code bpi_comment_find_by(const char *json, size_t len, const char *marker,
                            const struct bp_comment_author *by, char **id,
                            char **body, size_t *count, size_t *foreign,
                            struct bp_err *err);

/* How requests go out. */
struct bp_comment_transport {
  bp_code (*send)(const struct bp_http_opts *o,
                  const struct bp_http_req *req,
                  struct bp_http_resp *resp, struct bp_err *err);
  const struct bp_http_opts *http;
};

struct bp_comment_posted {
  char *id;              /* the comment's id when the answer had one */
  char *url;             /* its web page (GitHub's html_url), or NULL */
  bool updated;          /* an existing comment was edited */
  unsigned requests;
  long http_status;      /* the last error status the forge answered (0:
                            none): what a BPE_HTTP failure was, so that
                            the command can tell a refused token (401,
                            403) from a wrong request (404) */
  size_t foreign;        /* comments with the marker by other accounts,
                            left alone */
  bool left;             /* ours shows a newer comparison than markdown
                            (shown): left as it is, nothing written; id
                            is its id */
  struct bp_comment_compared shown;   /* when left */
  /* another job made a comment at the same moment, with a lower id: it
   * survives (id; edited with markdown unless left) and the one this
   * job made, duplicate, is deleted (duplicate_kept: that failed) */
  char *duplicate;
  bool duplicate_kept;
  /* the POST's answer was lost: its comment could not be told from one
   * another job made at the same moment, so of the marked comments the
   * lowest id survived (id) and the others went (duplicate the last) */
  bool answer_lost;
  /* what went wrong settling two comments made at once (code 0: none):
   * a warning, never a failure of the post */
  struct bp_err warning;
};

void bpi_comment_posted_cleanup(struct bp_comment_posted *p);

/* Put markdown on the pull request: list the comments page by page, edit
 * the one with markdown's marker written by the token's account (asked
 * with GET /user once a comment with the marker is seen), else create
 * one.  The one found is not edited when its compared line (comment.h)
 * names a newer comparison than markdown's, in the order of runorder.h
 * (res->left): jobs of two pushes, or two jobs of one commit, that
 * finish out of order never put back the older comparison.  With
 * t->head_is_current only the same commit's later run counts as newer.  A comment
 * without the line, or markdown without one, is replaced as before.
 * (Nothing makes the list and the edit one step: two jobs that list it
 * at the same moment can still both edit it; bpi_comment_settle, after,
 * puts the newer comparison back.)  An installation token
 * cannot tell its own bot from another App's: when the forge refuses
 * the edit (403 "not accessible by integration", or 404: gone
 * meanwhile; a 403 for a rate limit is an error) that comment is passed
 * over and the next one looked for, up to BP_COMMENT_MAX_REFUSED times,
 * then a new one is made.
 * Two jobs that list the comments before either makes one each make one:
 * so after making one the comments are listed again, and of the token's
 * account's comments with the marker the lowest id survives.  The job
 * that made it does nothing more; the other edits it with markdown
 * unless it shows a newer comparison (as above: res->left), then
 * deletes its own (DELETE; res->duplicate).  A failure there is
 * res->warning: the comment made stays.  When a POST's answer is lost
 * the comments are listed again before any new POST: a marked one of
 * ours means the POST made it (res->answer_lost), and as that one cannot
 * be told from a twin, the lowest survives, shows markdown unless newer,
 * and the others are deleted. */
#define BP_COMMENT_MAX_REFUSED 4
bp_code bpi_comment_post(const struct bp_forge_target *t,
                         const char *markdown,
                         const struct bp_comment_transport *tr,
                         struct bp_comment_posted *res, struct bp_err *err);

/* The request's head commit now, as the forge says, and the merge
 * commit the forge made of it (what a job of GitHub's pull_request
 * event checks out, GITHUB_SHA):
 *   GitHub  GET {api}/repos/{owner}/{repo}/pulls/{n}
 *           -> head.sha, merge_commit_sha
 *   GitLab  GET {api}/projects/{id}/merge_requests/{iid}
 *           -> sha, merge_commit_sha
 * *sha malloc'd (40 or 64 lowercase hex); *merge (when merge is not
 * NULL) malloc'd, or NULL when the forge has none.  A comparison of an
 * older commit (a re-run) must not replace the comment on a newer one. */
bp_code bpi_comment_pr_head(const struct bp_forge_target *t,
                            const struct bp_comment_transport *tr,
                            char **sha, char **merge, struct bp_err *err);

/* ------------------------------------------------------ commit status */

/* The verdict as a commit status on the head commit sha (40 or 64 hex):
 *   GitHub  POST {api}/repos/{owner}/{repo}/statuses/{sha}
 *           {"state": "success"|"failure", "context": "benchprof",
 *            "description": D, "target_url": U}
 *   GitLab  POST {api}/projects/{id}/statuses/{sha}
 *           {"state": "success"|"failed", "name": "benchprof",
 *            "description": D, "target_url": U}
 * failed: a regression was confirmed.  description is cut to 140
 * characters; target_url (the comment) is left out when NULL.  The
 * context is t->status_context when set: a suite's comment sets
 * "benchprof/SUITE", so that a job's steps (or testbeds) with suites
 * each keep a status of their own; without suites they share
 * "benchprof", and the last one posted is the one the commit shows. */
#define BP_COMMENT_STATUS_CONTEXT "benchprof"
/* The context of the status for the comment markdown: "benchprof/SUITE"
 * when its marker names a suite (bpi_comment_marker_suite), malloc'd;
 * NULL when it names none (BP_COMMENT_STATUS_CONTEXT then) or out of
 * memory (*nomem set). */
char *bpi_comment_status_context(const char *markdown, bool *nomem);
bp_code bpi_comment_status_url(const struct bp_forge_target *t,
                               const char *sha, struct bp_buf *url,
                               struct bp_err *err);
void bpi_comment_status_body(const struct bp_forge_target *t, bool failed,
                             const char *description, const char *target_url,
                             struct bp_buf *out);
bp_code bpi_comment_post_status(const struct bp_forge_target *t,
                                const char *sha, bool failed,
                                const char *description,
                                const char *target_url,
                                const struct bp_comment_transport *tr,
                                struct bp_err *err);

/* The verdict a posted comment carries, its last hidden line, so that
 * any job can tell what status the comment's comparison calls for:
 *   <!-- benchprof:verdict head=HASH regressions=N unconfirmed=M -->
 * head: the compared head commit (40 or 64 lowercase hex); regressions:
 * confirmed ones; unconfirmed: the others.  `benchprof comment` adds it
 * to the text it posts (from compare.json), not to the Markdown file. */
#define BP_COMMENT_VERDICT_PREFIX "<!-- benchprof:verdict "
struct bp_comment_verdict {
  char head[65];
  size_t regressions;
  size_t unconfirmed;
};
/* The line, its newline included; false (nothing added) when v->head is
 * not a full commit hash. */
bool bpi_comment_verdict_line(struct bp_buf *b,
                              const struct bp_comment_verdict *v);
/* The last verdict line in text: false (*v zeroed) when none is whole. */
bool bpi_comment_find_verdict(const char *text,
                              struct bp_comment_verdict *v);
/* "N regression(s) confirmed, M unconfirmed": a status's description. */
void bpi_comment_verdict_description(char *out, size_t n,
                                     const struct bp_comment_verdict *v);

/* The note on a comment that shows an older head's comparison as if it
 * were the request's head's (bpi_comment_settle: this job's edit landed
 * after a push, and after the new head's job read the comment back):
 *   _This comparison is of `1111111`; the pull request's head is now
 *   `2222222`, whose comparison has not landed yet._
 * ("merge request" on GitLab).  head: the compared commit; now: the
 * request's head; both shortened to 7 characters. */
void bpi_comment_outdated_note(struct bp_buf *b, enum bp_forge forge,
                               const char *head, const char *now);
/* posted with that note (and a blank line) as the first line a reader
 * sees: after the hidden lines at its top (the marker, the compared
 * line).  The compared and verdict lines stay as they are, so that every
 * job orders the comment as before and the new head's replaces it. */
void bpi_comment_mark_outdated(struct bp_buf *out, const char *posted,
                               enum bp_forge forge, const char *head,
                               const char *now);

/* What bpi_comment_settle did. */
struct bp_comment_settled {
  struct bp_comment_verdict set;   /* the verdict of the last status set */
  unsigned posts;                  /* statuses posted */
  unsigned reposts;  /* the comment showed an older comparison than ours
                        (another job's edit landed after ours): ours
                        written again */
  bool followed;     /* the comment showed another job's verdict of the
                        same head: the status was set from it */
  bool overtaken;    /* the comment shows a newer comparison than ours,
                        another job's: left it (shown) */
  struct bp_comment_compared shown;   /* when overtaken */
  bool unsettled;    /* the comment still changed after the last round */
  /* the comment shows posted's comparison, but the forge says the
   * request's head is now now_head (a push after this job checked it):
   * marked so (bpi_comment_mark_outdated), its status left to its own
   * job */
  bool outdated;
  bool unmarked;     /* outdated, but not marked: the note would make
                        the comment longer than a comment may be, or no
                        round was left (unsettled) */
  char now_head[65];
};
/* After this job wrote posted (its text, with its compared and verdict
 * lines) into comment comment_id, make the comment and the commit status
 * end as the newest job's.  Neither forge can make an edit conditional,
 * so two jobs that list the comment before either edits it both edit,
 * and the one whose edit lands last stays, older or not.  So the comment
 * is read again (GET of it alone) t->settle_ms after each write, long
 * enough for an edit another job sent before ours landed to land too:
 *  - it shows an older comparison than posted's (its compared line, in
 *    runorder.h's order, with t->head_is_current's rule; one without the
 *    line): posted is written again (done->reposts) and read again.  A
 *    comparison of another commit is older only while the forge still
 *    says posted's head is the request's (asked again then): a job whose
 *    head the request left meanwhile never writes over the new one's;
 *  - it shows a newer one (done->overtaken, done->shown): left as it is;
 *  - it shows posted's comparison: settled, unless t->head_is_current
 *    and the forge, asked again, says the request's head is now another
 *    commit (a push after this job's check, whose job read the comment
 *    back before this job's slower edit landed): then the comment would
 *    show an older comparison as the current one, so it is marked so
 *    (bpi_comment_mark_outdated; done->outdated) and read back again;
 *    no status is set for the new head (only its own job does that).
 *    Neither forge makes an edit conditional (GitHub's PATCH of a
 *    comment honours no If-Match, GitLab's note update takes the body
 *    alone: docs/reliability.md), so this mark and the new head's next
 *    run are what close the race;
 * With mine (posted's verdict, NULL: no status), the verdict is set as
 * the commit status of mine->head after each write, then followed: when
 * the comment, read again, shows another verdict of the same head that
 * is not older than posted's (another job of the head edited it), that
 * one is set and the comment read again.  A job never sets the status
 * of another head than its own.  On both forges the latest status of a
 * context (GitLab: name) is the one shown, and every job that writes the
 * comment sets a status after and reads the comment after it landed, so
 * the two agree.  At most BP_COMMENT_STATUS_ROUNDS rounds (a write or a
 * status, then a read): then done->unsettled.  posted without a compared
 * line is not read back before its status (nothing to order it by);
 * comment_id NULL or gone (404): nothing followed.  An error after a
 * status was set leaves done->posts > 0. */
#define BP_COMMENT_STATUS_ROUNDS 4
bp_code bpi_comment_settle(const struct bp_forge_target *t,
                           const char *comment_id, const char *posted,
                           const struct bp_comment_verdict *mine,
                           const char *target_url,
                           const struct bp_comment_transport *tr,
                           struct bp_comment_settled *done,
                           struct bp_err *err);

#endif

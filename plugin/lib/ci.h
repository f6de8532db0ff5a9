/* ci: who a run is.  Detects the branch, commit, pull request and base
 * from the CI system's environment (GitHub Actions with its event payload,
 * GitLab CI, Bencher runner jobs) or from git in a directory.  The
 * environment is passed in (the library never calls getenv), so tests and
 * the command see the same thing.  Owns: the strings of struct bp_ident. */
#ifndef BP_LIB_CI_H
#define BP_LIB_CI_H

#include <stdbool.h>

#include "benchprof/benchprof.h"

/* The fields of struct bp_ident in order, for loops and messages. */
enum bp_ident_field {
  BP_IDENT_PROJECT, BP_IDENT_BRANCH, BP_IDENT_HASH, BP_IDENT_TESTBED,
  BP_IDENT_PR, BP_IDENT_BASE_BRANCH, BP_IDENT_BASE_HASH, BP_IDENT_PROVIDER,
  BP_IDENT_REPO, BP_IDENT_API_URL, BP_IDENT_REPO_ID, BP_IDENT_NFIELDS
};

/* The identity of a run: it keys its Bencher report and its artifacts. */
struct bp_ident {
  char *project;      /* Bencher project slug, the store's first key part
                         (a name: repositories named alike share it, and
                         publications tell them apart by
                         bpi_ident_repository) */
  char *branch;       /* head branch ("main", "feature/x") */
  char *hash;         /* full commit hash (40 or 64 hex), NULL unknown */
  char *testbed;      /* machine class; default: the host name */
  /* a pull (merge) request; all NULL when this is not one */
  char *pr;           /* its number, "42" */
  char *base_branch;  /* the branch it merges into */
  char *base_hash;    /* the base commit */
  /* where a comment goes */
  char *provider;     /* "github", "gitlab", "bencher", "git", or NULL */
  char *repo;         /* GitHub "owner/name", GitLab project id */
  char *api_url;      /* GITHUB_API_URL, CI_API_V4_URL */
  /* GitHub's numeric repository id (GITHUB_REPOSITORY_ID), NULL
   * elsewhere: unlike repo it survives a transfer or an owner's rename,
   * so bpi_ident_repository prefers it.  Last: the fields before it keep
   * their order in `benchprof ci --json`. */
  char *repo_id;
  /* where each field came from, indexed by enum bp_ident_field: a
   * variable's name ("GITHUB_SHA"), "event payload pull_request.head.sha",
   * "git rev-parse HEAD", "host name"; NULL when it was set before
   * bpi_ci_detect (a flag or the config) or is unknown.  Literals. */
  const char *from[BP_IDENT_NFIELDS];
  /* what detection changed or could not trust, for the command to print
   * ("pull request 42 comes from 'main', ..."); NULL when nothing.  Not
   * part of the identity: bpi_ident_json leaves it out. */
  char *warning;
};

/* Whether s is a full commit hash, as the store's keys and Bencher take
 * it: 40 hex digits (SHA-1), or 64 (a SHA-256 repository), any case.  An
 * abbreviated one is not: git expands it only where the commit is (a
 * shallow CI checkout often lacks the base), and the store cannot. */
bool bpi_ci_is_hash(const char *s);

/* The field's storage and its name ("base_hash"). */
char **bpi_ident_field(struct bp_ident *id, enum bp_ident_field f);
const char *bpi_ident_field_name(enum bp_ident_field f);

/* dst (empty) becomes a copy of src, sources included.  BPE_NOMEM (dst
 * then empty). */
bp_code bpi_ident_copy(struct bp_ident *dst, const struct bp_ident *src);

/* Set field f to a copy of value unless it is set already; from as in
 * struct bp_ident.  For the caller's flags and config, from is NULL. */
bp_code bpi_ident_set(struct bp_ident *id, enum bp_ident_field f,
                      const char *value, const char *from);

/* Fill the fields of id that are still NULL (flags set first win) from
 * envp, then from git in dir.  Never fails for a missing CI: fields it
 * cannot learn stay NULL.  In order, each filling only what is still NULL:
 *   1. Bencher runner jobs: BENCHER_PROJECT, BENCHER_BRANCH, BENCHER_HASH,
 *      BENCHER_TESTBED, BENCHER_START_POINT (base branch),
 *      BENCHER_START_POINT_HASH (base commit).  These names are ours (the
 *      first three are also the bencher CLI's): Bencher's runner exports
 *      nothing documented, so the job's definition sets them.
 *   2. GitHub Actions (GITHUB_ACTIONS=true): the event payload at
 *      GITHUB_EVENT_PATH (pull_request.number, .head.sha, .head.ref,
 *      .base.sha, .base.ref: on a pull request GITHUB_SHA is the merge
 *      commit, so the head's hash is taken; from a fork, whose
 *      head.repo.full_name is not base.repo.full_name, the branch is
 *      "owner:ref", never a name of the base repository's branches;
 *      repository.default_branch), then GITHUB_HEAD_REF,
 *      GITHUB_BASE_REF, GITHUB_REF_NAME, GITHUB_SHA, GITHUB_REPOSITORY
 *      (project: its name part), GITHUB_API_URL (default
 *      https://api.github.com), GITHUB_REPOSITORY_ID (repo_id; only a
 *      number, else ignored).  GITHUB_REF_NAME and GITHUB_SHA only for
 *      the events whose ref is the code the job runs (push, pull
 *      requests, workflow_dispatch, schedule, merge_group, or no
 *      GITHUB_EVENT_NAME); for the others (issue_comment, ...) they are
 *      the default branch's tip: left to git, and said in warning.
 *   3. GitLab CI (GITLAB_CI=true): CI_MERGE_REQUEST_IID,
 *      CI_MERGE_REQUEST_SOURCE_BRANCH_NAME/_SHA,
 *      CI_MERGE_REQUEST_TARGET_BRANCH_NAME, the base commit
 *      (CI_MERGE_REQUEST_TARGET_BRANCH_SHA in merged results and merge
 *      train pipelines, else CI_MERGE_REQUEST_DIFF_BASE_SHA),
 *      CI_COMMIT_REF_NAME, CI_COMMIT_SHA, CI_PROJECT_NAME, the repo
 *      CI_MERGE_REQUEST_PROJECT_ID (the merge request's project, also
 *      when a fork's pipeline runs in the fork) else CI_PROJECT_ID,
 *      CI_API_V4_URL, CI_DEFAULT_BRANCH.  A merge request from a fork
 *      (CI_MERGE_REQUEST_SOURCE_PROJECT_ID is not
 *      CI_MERGE_REQUEST_PROJECT_ID) has the branch "namespace:branch",
 *      the namespace from CI_MERGE_REQUEST_SOURCE_PROJECT_PATH.
 *   4. git in dir (NULL: "."): HEAD's commit, its branch (none when
 *      detached) and the top-level directory's name as the project, from
 *      one `git rev-parse` (two git processes outside a repository, four
 *      before its first commit or under a top level whose name holds a
 *      newline).
 *   5. a pull request whose branch is the default branch, its
 *      own base, or matches base_branches (BENCHPROF_BASE_BRANCHES:
 *      fnmatch patterns separated by commas or spaces) gets the branch "pr-N:ref", said
 *      in warning: never a branch that pushes publish to.
 *   6. testbed: the host name.
 * The branch is never guessed: it may stay NULL (bpi_publish_ident_check
 * then refuses to publish).
 * BPE_FORMAT for an event payload that cannot be read or is malformed,
 * BPE_CONFIG for a variable whose value is not what it names (a hash that
 * is not 40 or 64 hex digits); err says which file or variable. */
bp_code bpi_ci_detect(struct bp_ident *id, char *const *envp,
                      const char *dir, struct bp_err *err);
/* The same with the base branches' patterns given (the configuration's
 * base_branches, which BENCHPROF_BASE_BRANCHES overrides): bpi_ci_detect
 * takes them from BENCHPROF_BASE_BRANCHES alone. */
bp_code bpi_ci_detect_bases(struct bp_ident *id, char *const *envp,
                            const char *dir, const char *base_branches,
                            struct bp_err *err);

/* The CI job this process runs in, from envp alone (no git, no file
 * read): its provider as bpi_ci_detect names it ("github" for
 * GITHUB_ACTIONS=true, else "gitlab" for GITLAB_CI=true, else "bencher"
 * when a BENCHER_* variable of step 1 is set), NULL outside CI; and
 * *project the project its variables name, as bpi_ci_detect takes it
 * before asking git (BENCHER_PROJECT, else GITHUB_REPOSITORY's name part
 * on GitHub, CI_PROJECT_NAME on GitLab), NULL when they name none.  Both
 * point into envp (or are literals). */
const char *bpi_ci_job(char *const *envp, const char **project);

/* Whether benchprof's runner hooks set up this CI job and its end hook
 * posts the pull request comment a run wrote under dir (its output
 * directory, which exists): BENCHPROF_HOOKS, which the started hooks set
 * to the provider they ran for ("github", "gitlab"), names the provider
 * bpi_ci_job finds in envp, and dir is the hooks' BENCHPROF_OUTPUT or
 * its suite=NAME subdirectory (the end hooks look nowhere else). */
bool bpi_ci_hooks_post_comment(char *const *envp, const char *dir);

/* The CI job this process runs in, from envp alone: "github:RUN/ATTEMPT/JOB"
 * (GITHUB_RUN_ID, GITHUB_RUN_ATTEMPT, else 1, and GITHUB_JOB: the steps
 * of one job share it; a re-run is another attempt), "gitlab:ID"
 * (CI_JOB_ID), NULL (no error) elsewhere or when the variables are
 * missing.  A publication records it (publication.json's and the stored
 * manifest's "ci_job") so that one that replaces another step's run of
 * the same job says so (publish.h).  Malloc'd; *nomem set when memory
 * ran out. */
char *bpi_ci_job_id(char *const *envp, bool *nomem);

/* The name of this CI job's own directory under an output directory that
 * the jobs of a runner share (an absolute "output"): "job=" and
 * bpi_ci_job_id's id, ':' and '/' made '-', on GitHub "-RUNNER" after
 * it (a matrix's jobs share GITHUB_JOB; one runner runs one job at a
 * time), bytes outside [A-Za-z0-9._-] made '_': "job=github-RUN-
 * ATTEMPT-JOB-RUNNER", "job=gitlab-ID".  RUNNER is RUNNER_NAME, else
 * "temp-" and the first 8 hex digits of the SHA-256 of RUNNER_TEMP's
 * path (each runner of a host has its own), else none.  NULL (no
 * error) where bpi_ci_job_id is (Bencher's runner gives each job its own
 * machine).  Malloc'd; *nomem set when memory ran out. */
char *bpi_ci_job_dir(char *const *envp, bool *nomem);

/* The repository of the CI job this process runs in, from envp alone,
 * as bpi_ident_repository names it for the identity bpi_ci_detect finds
 * in that job (GITHUB_REPOSITORY_ID or GITHUB_REPOSITORY with
 * GITHUB_API_URL; CI_MERGE_REQUEST_PROJECT_ID or CI_PROJECT_ID with
 * CI_API_V4_URL): what flush compares with a spooled publication's, so
 * that a job never delivers a same-named repository's.  NULL (no error)
 * outside GitHub Actions and GitLab CI or when they name no repository.
 * Malloc'd; *nomem set when memory ran out. */
char *bpi_ci_job_repository(char *const *envp, bool *nomem);

/* The committer time of commit hash (40 or 64 hex digits) as git in dir
 * (NULL: ".") knows it, an ISO 8601 UTC time ("2024-05-01T12:00:00Z")
 * in out: what orders the runs of a branch for its latest pointer (the
 * commit's age, not when its run ended).  Rebasing or amending makes a
 * new committer time.  False, out empty, when git cannot say: git
 * missing, not a repository, or a commit it does not have (a shallow or
 * partial clone; a partial clone does not fetch it, with git 2.44+).
 * One git process. */
#define BP_COMMIT_TIME_MAX 32
bool bpi_ci_commit_time(const char *dir, char *const *envp, const char *hash,
                        char out[BP_COMMIT_TIME_MAX]);

/* The repository a run belongs to, as publications record it (publish.h:
 * two repositories with the same name share the store's {project} keys,
 * and this tells their runs apart).  GitHub: "github:id:ID" from repo_id
 * (GITHUB_REPOSITORY_ID, which runners set since 2022), the id that
 * stays when the repository is transferred or its owner renamed; the
 * colon keeps it apart from any "owner/name" (names have none).  Without
 * repo_id, "github:owner/name" from repo.  GitHub Enterprise Server:
 * "github:HOST/id:ID", "github:HOST/owner/name", HOST that of api_url.
 * GitLab: "gitlab:HOST/ID" (HOST that of api_url, CI_API_V4_URL: one
 * instance's project ids are its own; "gitlab:ID" without one); GitLab's
 * project id is stable already.  The host never has a URL's
 * user:password@.  NULL (no error) for any other provider (git, Bencher
 * jobs, none) or without repo (and repo_id): such runs are not told
 * apart.
 * Malloc'd; *nomem set when memory ran out. */
char *bpi_ident_repository(const struct bp_ident *id, bool *nomem);

/* Whether repositories a and b (bpi_ident_repository's) are known to be
 * two: both given, different, and not GitHub's two forms of one (its
 * "id:ID" against "owner/name").  A side without one (written before repositories were
 * recorded, a local run), or GitHub's two forms (a runner that did not
 * set GITHUB_REPOSITORY_ID, then one that did: maybe the same
 * repository), cannot be told apart: false. */
bool bpi_repository_other(const char *a, const char *b);

void bpi_ident_cleanup(struct bp_ident *id);

struct bp_buf;
/* id as the JSON object `benchprof ci --json` prints (every field, null
 * when unknown, then "from", then the run's "suite", NULL: null), one
 * field a line, appended to b.  The same bytes for the same identity:
 * the runner hooks compare the lines. */
void bpi_ident_json(const struct bp_ident *id, const char *suite,
                    struct bp_buf *b);

#endif

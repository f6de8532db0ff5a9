/* ci: identity from Bencher, GitHub (push, pull request payload, malformed
 * payload) and GitLab variables.  git is left out here (no dir with a
 * repository; ci_detect.sh makes one): every case sets hash, branch and
 * project so git is not asked, or points dir at a directory that is not
 * a repository. */
#include "bp_setup.h"
#include "ci.h"
#include "publish.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HEAD "1111111111111111111111111111111111111111"
#define BASE "2222222222222222222222222222222222222222"
#define MERGE "3333333333333333333333333333333333333333"

static char tmpdir[200];

/* A file in tmpdir holding text; its path in a static buffer. */
static const char *write_file(const char *name, const char *text)
{
  static char path[256];
  snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
  FILE *f = fopen(path, "w");
  if(!f)
    return path;
  fputs(text, f);
  fclose(f);
  return path;
}

static void test_github_push(void)
{
  struct bp_ident id = {0};
  struct bp_err err = {0};
  char *env[] = {"GITHUB_ACTIONS=true", "GITHUB_SHA=" HEAD,
                 "GITHUB_REF_NAME=main", "GITHUB_REPOSITORY=acme/widget",
                 "GITHUB_HEAD_REF=", "GITHUB_BASE_REF=", NULL};
  CHECK_EQ_INT(bpi_ci_detect(&id, env, tmpdir, &err), BP_OK);
  CHECK_EQ_STR(id.provider, "github");
  CHECK_EQ_STR(id.hash, HEAD);
  CHECK_EQ_STR(id.from[BP_IDENT_HASH], "GITHUB_SHA");
  CHECK_EQ_STR(id.branch, "main");
  CHECK_EQ_STR(id.project, "widget");
  CHECK_EQ_STR(id.repo, "acme/widget");
  CHECK_EQ_STR(id.api_url, "https://api.github.com");
  CHECK(id.pr == NULL && id.base_branch == NULL && id.base_hash == NULL);
  CHECK(id.testbed != NULL);
  CHECK_EQ_STR(id.from[BP_IDENT_TESTBED], "host name");
  bpi_ident_cleanup(&id);
}

static void test_github_pull_request(void)
{
  const char *payload = write_file("pr.json",
    "{\"action\": \"synchronize\", \"number\": 42, \"pull_request\": {"
    "\"number\": 42, \"head\": {\"sha\": \"" HEAD "\", \"ref\": \"feat/x\"},"
    "\"base\": {\"sha\": \"" BASE "\", \"ref\": \"main\"}}}");
  char ev[300];
  snprintf(ev, sizeof(ev), "GITHUB_EVENT_PATH=%s", payload);
  char *env[] = {"GITHUB_ACTIONS=true", "GITHUB_SHA=" MERGE,
                 "GITHUB_REF_NAME=42/merge", "GITHUB_HEAD_REF=feat/x",
                 "GITHUB_BASE_REF=main", "GITHUB_REPOSITORY=acme/widget",
                 "GITHUB_API_URL=https://ghe.example/api/v3", ev, NULL};
  struct bp_ident id = {0};
  struct bp_err err = {0};
  /* a flag set first wins */
  CHECK_EQ_INT(bpi_ident_set(&id, BP_IDENT_TESTBED, "mine", NULL), BP_OK);
  CHECK_EQ_INT(bpi_ci_detect(&id, env, tmpdir, &err), BP_OK);
  CHECK_EQ_STR(id.hash, HEAD);   /* not the merge commit */
  CHECK_EQ_STR(id.from[BP_IDENT_HASH], "event payload pull_request.head.sha");
  CHECK_EQ_STR(id.branch, "feat/x");
  CHECK_EQ_STR(id.pr, "42");
  CHECK_EQ_STR(id.base_branch, "main");
  CHECK_EQ_STR(id.base_hash, BASE);
  CHECK_EQ_STR(id.api_url, "https://ghe.example/api/v3");
  CHECK_EQ_STR(id.testbed, "mine");
  CHECK(id.from[BP_IDENT_TESTBED] == NULL);
  bpi_ident_cleanup(&id);
}

/* A pull request from a fork whose branch is called like the base's
 * branch: the branch is qualified by the fork's owner, never "main". */
static void test_github_fork(void)
{
  static const char *const payloads[] = {
    /* the owner's login */
    "{\"pull_request\": {\"number\": 9, \"head\": {\"sha\": \"" HEAD "\","
    "\"ref\": \"main\", \"label\": \"contributor:main\", \"repo\": "
    "{\"full_name\": \"contributor/demo\", \"owner\": {\"login\": "
    "\"contributor\"}}}, \"base\": {\"sha\": \"" BASE "\", \"ref\": "
    "\"main\", \"repo\": {\"full_name\": \"org/demo\"}}}}",
    /* no owner object: full_name's owner part */
    "{\"pull_request\": {\"number\": 9, \"head\": {\"sha\": \"" HEAD "\","
    "\"ref\": \"main\", \"repo\": {\"full_name\": \"contributor/demo\"}},"
    "\"base\": {\"sha\": \"" BASE "\", \"ref\": \"main\", \"repo\": "
    "{\"full_name\": \"org/demo\"}}}}",
    /* a deleted fork: repo null, the label's owner part */
    "{\"pull_request\": {\"number\": 9, \"head\": {\"sha\": \"" HEAD "\","
    "\"ref\": \"main\", \"label\": \"contributor:main\", \"repo\": null},"
    "\"base\": {\"sha\": \"" BASE "\", \"ref\": \"main\", \"repo\": "
    "{\"full_name\": \"org/demo\"}}}}",
  };
  for(size_t i = 0; i < BP_ARRAY_LEN(payloads); i++) {
    const char *path = write_file("fork.json", payloads[i]);
    char ev[300];
    snprintf(ev, sizeof(ev), "GITHUB_EVENT_PATH=%s", path);
    char *env[] = {"GITHUB_ACTIONS=true", "GITHUB_SHA=" MERGE,
                   "GITHUB_REF_NAME=9/merge", "GITHUB_HEAD_REF=main",
                   "GITHUB_BASE_REF=main", "GITHUB_REPOSITORY=org/demo", ev,
                   NULL};
    struct bp_ident id = {0};
    struct bp_err err = {0};
    CHECK_EQ_INT(bpi_ci_detect(&id, env, tmpdir, &err), BP_OK);
    CHECK_EQ_STR(id.branch, "contributor:main");
    CHECK_EQ_STR(id.base_branch, "main");
    CHECK_EQ_STR(id.hash, HEAD);
    CHECK_EQ_STR(id.pr, "9");
    CHECK_EQ_STR(id.repo, "org/demo");
    CHECK_EQ_STR(id.project, "demo");
    bpi_ident_cleanup(&id);
  }
  /* the same repository on both sides: the plain ref */
  const char *path = write_file("fork.json",
    "{\"pull_request\": {\"number\": 9, \"head\": {\"sha\": \"" HEAD "\","
    "\"ref\": \"feat\", \"repo\": {\"full_name\": \"org/demo\"}},"
    "\"base\": {\"sha\": \"" BASE "\", \"ref\": \"main\", \"repo\": "
    "{\"full_name\": \"org/demo\"}}}}");
  char ev[300];
  snprintf(ev, sizeof(ev), "GITHUB_EVENT_PATH=%s", path);
  char *env[] = {"GITHUB_ACTIONS=true", ev, NULL};
  struct bp_ident id = {0};
  struct bp_err err = {0};
  CHECK_EQ_INT(bpi_ci_detect(&id, env, tmpdir, &err), BP_OK);
  CHECK_EQ_STR(id.branch, "feat");
  bpi_ident_cleanup(&id);
  /* a flag's branch still wins */
  char *fork_env[] = {"GITHUB_ACTIONS=true", ev, NULL};
  write_file("fork.json", payloads[0]);
  CHECK_EQ_INT(bpi_ident_set(&id, BP_IDENT_BRANCH, "given", NULL), BP_OK);
  CHECK_EQ_INT(bpi_ci_detect(&id, fork_env, tmpdir, &err), BP_OK);
  CHECK_EQ_STR(id.branch, "given");
  bpi_ident_cleanup(&id);
}

static void test_github_bad_payloads(void)
{
  static const struct {
    const char *text;
    const char *what;
  } cases[] = {
    {"{\"pull_request\": ", "1:18: JSON syntax error"},
    {"[]", "$: expected an object"},
    {"{\"pull_request\": 5}", "$.pull_request: expected an object"},
    {"{\"pull_request\": {\"number\": \"42\", \"head\": {}, \"base\": {}}}",
     "$.pull_request.number: expected a positive whole number"},
    {"{\"pull_request\": {\"number\": 42}}",
     "$.pull_request: expected \"head\" and \"base\" objects"},
    {"{\"pull_request\": {\"number\": 4, \"head\": {\"sha\": \"xyz\"}, "
     "\"base\": {}}}",
     "$.pull_request.head.sha: 'xyz' is not a commit hash"},
    {"{\"pull_request\": {\"number\": 4, \"head\": {\"ref\": 7}, "
     "\"base\": {}}}",
     "$.pull_request.head.ref: expected a non-empty string"},
  };
  for(size_t i = 0; i < BP_ARRAY_LEN(cases); i++) {
    const char *path = write_file("bad.json", cases[i].text);
    char ev[300], want[512];
    snprintf(ev, sizeof(ev), "GITHUB_EVENT_PATH=%s", path);
    snprintf(want, sizeof(want), "event payload '%s' (GITHUB_EVENT_PATH): %s",
             path, cases[i].what);
    char *env[] = {"GITHUB_ACTIONS=true", ev, NULL};
    struct bp_ident id = {0};
    struct bp_err err = {0};
    CHECK_EQ_INT(bpi_ci_detect(&id, env, tmpdir, &err), BPE_FORMAT);
    CHECK_EQ_STR(err.msg, want);
    bpi_ident_cleanup(&id);
  }
  char *missing[] = {"GITHUB_ACTIONS=true",
                     "GITHUB_EVENT_PATH=/nonexistent/event.json", NULL};
  struct bp_ident id = {0};
  struct bp_err err = {0};
  CHECK_EQ_INT(bpi_ci_detect(&id, missing, tmpdir, &err), BPE_FORMAT);
  CHECK_EQ_STR(err.msg, "event payload '/nonexistent/event.json' "
               "(GITHUB_EVENT_PATH): cannot read it: No such file or "
               "directory");
  bpi_ident_cleanup(&id);

  char *bad_sha[] = {"GITHUB_ACTIONS=true", "GITHUB_SHA=abc", NULL};
  struct bp_err err2 = {0};
  CHECK_EQ_INT(bpi_ci_detect(&id, bad_sha, tmpdir, &err2), BPE_CONFIG);
  CHECK_EQ_STR(err2.msg, "GITHUB_SHA: 'abc' is not a commit hash (40 or 64 "
               "hex digits)");
  bpi_ident_cleanup(&id);
}

static void test_gitlab(void)
{
  char *env[] = {"GITLAB_CI=true", "CI_COMMIT_SHA=" MERGE,
                 "CI_COMMIT_REF_NAME=feat/y", "CI_MERGE_REQUEST_IID=7",
                 "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME=feat/y",
                 "CI_MERGE_REQUEST_SOURCE_BRANCH_SHA=" HEAD,
                 "CI_MERGE_REQUEST_TARGET_BRANCH_NAME=main",
                 "CI_MERGE_REQUEST_DIFF_BASE_SHA=" BASE,
                 "CI_PROJECT_ID=1234", "CI_PROJECT_NAME=widget",
                 "CI_API_V4_URL=https://gitlab.example/api/v4", NULL};
  struct bp_ident id = {0};
  struct bp_err err = {0};
  CHECK_EQ_INT(bpi_ci_detect(&id, env, tmpdir, &err), BP_OK);
  CHECK_EQ_STR(id.provider, "gitlab");
  CHECK_EQ_STR(id.hash, HEAD);
  CHECK_EQ_STR(id.branch, "feat/y");
  CHECK_EQ_STR(id.pr, "7");
  CHECK_EQ_STR(id.base_branch, "main");
  CHECK_EQ_STR(id.base_hash, BASE);
  CHECK_EQ_STR(id.repo, "1234");
  CHECK_EQ_STR(id.project, "widget");
  CHECK_EQ_STR(id.api_url, "https://gitlab.example/api/v4");
  bpi_ident_cleanup(&id);

  char *bad[] = {"GITLAB_CI=true", "CI_MERGE_REQUEST_IID=seven", NULL};
  CHECK_EQ_INT(bpi_ci_detect(&id, bad, tmpdir, &err), BPE_CONFIG);
  bpi_ident_cleanup(&id);
}

/* A merge request from a fork: "namespace:branch". */
static void test_gitlab_fork(void)
{
  char *env[] = {"GITLAB_CI=true", "CI_COMMIT_SHA=" HEAD,
                 "CI_COMMIT_REF_NAME=main", "CI_MERGE_REQUEST_IID=3",
                 "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME=main",
                 "CI_MERGE_REQUEST_TARGET_BRANCH_NAME=main",
                 "CI_MERGE_REQUEST_DIFF_BASE_SHA=" BASE,
                 "CI_MERGE_REQUEST_PROJECT_ID=1234",
                 "CI_MERGE_REQUEST_SOURCE_PROJECT_ID=5678",
                 "CI_MERGE_REQUEST_SOURCE_PROJECT_PATH=contributor/demo",
                 "CI_PROJECT_ID=1234", "CI_PROJECT_NAME=demo", NULL};
  struct bp_ident id = {0};
  struct bp_err err = {0};
  CHECK_EQ_INT(bpi_ci_detect(&id, env, tmpdir, &err), BP_OK);
  CHECK_EQ_STR(id.branch, "contributor:main");
  CHECK_EQ_STR(id.base_branch, "main");
  CHECK_EQ_STR(id.repo, "1234");
  bpi_ident_cleanup(&id);

  /* nested groups keep their path; no path: the project id */
  env[9] = "CI_MERGE_REQUEST_SOURCE_PROJECT_PATH=group/sub/demo";
  CHECK_EQ_INT(bpi_ci_detect(&id, env, tmpdir, &err), BP_OK);
  CHECK_EQ_STR(id.branch, "group/sub:main");
  bpi_ident_cleanup(&id);
  env[9] = "CI_PROJECT_ID=1234";
  CHECK_EQ_INT(bpi_ci_detect(&id, env, tmpdir, &err), BP_OK);
  CHECK_EQ_STR(id.branch, "5678:main");
  bpi_ident_cleanup(&id);

  /* the same project, from its own target branch (main -> main): never
   * the target's "main", whose runs, latest and history it would
   * overwrite, but the request's own name, said in the warning */
  env[8] = "CI_MERGE_REQUEST_SOURCE_PROJECT_ID=1234";
  CHECK_EQ_INT(bpi_ci_detect(&id, env, tmpdir, &err), BP_OK);
  CHECK_EQ_STR(id.branch, "pr-3:main");
  CHECK(id.warning && strstr(id.warning, "'pr-3:main'"));
  bpi_ident_cleanup(&id);

  /* the same project from a feature branch: the plain branch */
  env[2] = "CI_COMMIT_REF_NAME=feature";
  env[4] = "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME=feature";
  CHECK_EQ_INT(bpi_ci_detect(&id, env, tmpdir, &err), BP_OK);
  CHECK_EQ_STR(id.branch, "feature");
  CHECK(id.warning == NULL);
  bpi_ident_cleanup(&id);
}

static void test_bencher(void)
{
  /* ours win over the CI's: a job sets them on purpose */
  char *env[] = {"BENCHER_PROJECT=proj", "BENCHER_BRANCH=bb",
                 "BENCHER_HASH=" HEAD, "BENCHER_TESTBED=metal",
                 "BENCHER_START_POINT=main", "BENCHER_START_POINT_HASH=" BASE,
                 "GITHUB_ACTIONS=true", "GITHUB_SHA=" MERGE,
                 "GITHUB_REF_NAME=other", NULL};
  struct bp_ident id = {0};
  struct bp_err err = {0};
  CHECK_EQ_INT(bpi_ci_detect(&id, env, tmpdir, &err), BP_OK);
  CHECK_EQ_STR(id.project, "proj");
  CHECK_EQ_STR(id.branch, "bb");
  CHECK_EQ_STR(id.hash, HEAD);
  CHECK_EQ_STR(id.testbed, "metal");
  CHECK_EQ_STR(id.base_branch, "main");
  CHECK_EQ_STR(id.base_hash, BASE);
  CHECK_EQ_STR(id.from[BP_IDENT_BRANCH], "BENCHER_BRANCH");
  CHECK_EQ_STR(id.provider, "github");
  bpi_ident_cleanup(&id);

  char *alone[] = {"BENCHER_PROJECT=proj", "BENCHER_BRANCH=bb",
                   "BENCHER_HASH=" HEAD, NULL};
  CHECK_EQ_INT(bpi_ci_detect(&id, alone, tmpdir, &err), BP_OK);
  CHECK_EQ_STR(id.provider, "bencher");
  bpi_ident_cleanup(&id);
}

/* A same-repository pull request from a branch that pushes publish to:
 * the default branch (main -> release), a listed base (develop -> main).
 * Its runs go to "pr-N:ref", never to that branch. */
static void test_github_base_head(void)
{
  const char *payload = write_file("basehead.json",
    "{\"pull_request\": {\"number\": 42, \"head\": {\"sha\": \"" HEAD "\","
    "\"ref\": \"main\", \"repo\": {\"full_name\": \"acme/widget\"}},"
    "\"base\": {\"sha\": \"" BASE "\", \"ref\": \"release\", \"repo\": "
    "{\"full_name\": \"acme/widget\"}}},"
    "\"repository\": {\"full_name\": \"acme/widget\", "
    "\"default_branch\": \"main\"}}");
  char ev[300];
  snprintf(ev, sizeof(ev), "GITHUB_EVENT_PATH=%s", payload);
  char *env[] = {"GITHUB_ACTIONS=true", "GITHUB_EVENT_NAME=pull_request",
                 "GITHUB_SHA=" MERGE, "GITHUB_REF_NAME=42/merge",
                 "GITHUB_HEAD_REF=main", "GITHUB_BASE_REF=release",
                 "GITHUB_REPOSITORY=acme/widget", ev, NULL, NULL};
  struct bp_ident id = {0};
  struct bp_err err = {0};
  CHECK_EQ_INT(bpi_ci_detect(&id, env, tmpdir, &err), BP_OK);
  CHECK_EQ_STR(id.branch, "pr-42:main");
  CHECK_EQ_STR(id.base_branch, "release");
  CHECK_EQ_STR(id.hash, HEAD);
  CHECK(id.warning && strstr(id.warning, "default branch"));
  CHECK_EQ_INT(bpi_publish_ident_check(&id, &err), BP_OK);
  bpi_ident_cleanup(&id);

  /* a branch given by the caller (--branch "$GITHUB_HEAD_REF") too */
  CHECK_EQ_INT(bpi_ident_set(&id, BP_IDENT_BRANCH, "release", NULL), BP_OK);
  CHECK_EQ_INT(bpi_ci_detect(&id, env, tmpdir, &err), BP_OK);
  CHECK_EQ_STR(id.branch, "pr-42:release");
  CHECK(id.warning && strstr(id.warning, "its own base branch"));
  bpi_ident_cleanup(&id);

  /* outside a pull request, a branch that is its own base is refused
   * when publishing */
  CHECK_EQ_INT(bpi_ident_set(&id, BP_IDENT_BRANCH, "release", NULL), BP_OK);
  CHECK_EQ_INT(bpi_ident_set(&id, BP_IDENT_BASE_BRANCH, "release", NULL),
               BP_OK);
  CHECK_EQ_INT(bpi_publish_ident_check(&id, &err), BPE_CONFIG);
  CHECK(strstr(err.msg, "also the base branch") != NULL);
  bpi_ident_cleanup(&id);

  /* develop -> main: develop is long-lived only when listed */
  payload = write_file("basehead.json",
    "{\"pull_request\": {\"number\": 43, \"head\": {\"sha\": \"" HEAD "\","
    "\"ref\": \"develop\"}, \"base\": {\"sha\": \"" BASE "\", \"ref\": "
    "\"main\"}}, \"repository\": {\"default_branch\": \"main\"}}");
  env[4] = "GITHUB_HEAD_REF=develop";
  env[5] = "GITHUB_BASE_REF=main";
  CHECK_EQ_INT(bpi_ci_detect(&id, env, tmpdir, &err), BP_OK);
  CHECK_EQ_STR(id.branch, "develop");
  bpi_ident_cleanup(&id);
  env[8] = "BENCHPROF_BASE_BRANCHES=release/*, develop";
  CHECK_EQ_INT(bpi_ci_detect(&id, env, tmpdir, &err), BP_OK);
  CHECK_EQ_STR(id.branch, "pr-43:develop");
  CHECK(id.warning && strstr(id.warning, "(base_branches)"));
  bpi_ident_cleanup(&id);
}

/* Events whose GITHUB_REF_NAME and GITHUB_SHA are the default branch's
 * tip, not the code the job runs: neither is taken. */
static void test_github_issue_comment(void)
{
  char *env[] = {"GITHUB_ACTIONS=true", "GITHUB_EVENT_NAME=issue_comment",
                 "GITHUB_SHA=" MERGE, "GITHUB_REF_NAME=main",
                 "GITHUB_REPOSITORY=acme/widget", NULL};
  struct bp_ident id = {0};
  struct bp_err err = {0};
  CHECK_EQ_INT(bpi_ci_detect(&id, env, tmpdir, &err), BP_OK);
  CHECK(id.branch == NULL && id.hash == NULL);
  CHECK_EQ_STR(id.repo, "acme/widget");
  CHECK(id.warning && strstr(id.warning, "GITHUB_EVENT_NAME=issue_comment"));
  CHECK_EQ_INT(bpi_publish_ident_check(&id, &err), BPE_CONFIG);
  CHECK(strstr(err.msg, "branch is unknown") != NULL);
  bpi_ident_cleanup(&id);
  /* a push is its own code */
  env[1] = "GITHUB_EVENT_NAME=push";
  CHECK_EQ_INT(bpi_ci_detect(&id, env, tmpdir, &err), BP_OK);
  CHECK_EQ_STR(id.branch, "main");
  CHECK_EQ_STR(id.hash, MERGE);
  CHECK(id.warning == NULL);
  bpi_ident_cleanup(&id);
}

/* GitLab: a fork's pipeline runs in the fork, the merge request (its
 * notes) is the target project's; merged results compare with the
 * target's tip. */
static void test_gitlab_fork_pipeline_and_merged(void)
{
  char *env[] = {"GITLAB_CI=true", "CI_COMMIT_SHA=" MERGE,
                 "CI_COMMIT_REF_NAME=feature", "CI_MERGE_REQUEST_IID=3",
                 "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME=feature",
                 "CI_MERGE_REQUEST_SOURCE_BRANCH_SHA=" HEAD,
                 "CI_MERGE_REQUEST_TARGET_BRANCH_NAME=main",
                 "CI_MERGE_REQUEST_DIFF_BASE_SHA=" BASE,
                 "CI_MERGE_REQUEST_TARGET_BRANCH_SHA=" MERGE,
                 "CI_MERGE_REQUEST_PROJECT_ID=1234",
                 "CI_MERGE_REQUEST_SOURCE_PROJECT_ID=5678",
                 "CI_PROJECT_ID=5678", "CI_PROJECT_NAME=demo",
                 "CI_MERGE_REQUEST_EVENT_TYPE=detached", NULL};
  struct bp_ident id = {0};
  struct bp_err err = {0};
  CHECK_EQ_INT(bpi_ci_detect(&id, env, tmpdir, &err), BP_OK);
  CHECK_EQ_STR(id.repo, "1234");
  CHECK_EQ_STR(id.from[BP_IDENT_REPO], "CI_MERGE_REQUEST_PROJECT_ID");
  CHECK_EQ_STR(id.base_hash, BASE);
  bpi_ident_cleanup(&id);
  static const char *const merged[] = {
    "CI_MERGE_REQUEST_EVENT_TYPE=merged_result",
    "CI_MERGE_REQUEST_EVENT_TYPE=merge_train",
  };
  for(size_t i = 0; i < BP_ARRAY_LEN(merged); i++) {
    env[13] = (char *)merged[i];
    CHECK_EQ_INT(bpi_ci_detect(&id, env, tmpdir, &err), BP_OK);
    CHECK_EQ_STR(id.base_hash, MERGE);
    CHECK_EQ_STR(id.from[BP_IDENT_BASE_HASH],
                 "CI_MERGE_REQUEST_TARGET_BRANCH_SHA");
    CHECK_EQ_STR(id.hash, HEAD);
    bpi_ident_cleanup(&id);
  }
  /* the default branch as the source: the request's own name */
  env[2] = "CI_COMMIT_REF_NAME=trunk";
  env[4] = "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME=trunk";
  env[10] = "CI_DEFAULT_BRANCH=trunk";
  env[11] = "CI_PROJECT_ID=1234";
  CHECK_EQ_INT(bpi_ci_detect(&id, env, tmpdir, &err), BP_OK);
  CHECK_EQ_STR(id.branch, "pr-3:trunk");
  bpi_ident_cleanup(&id);
}

/* A Bencher runner job with a start point: its branch missing, or the
 * start point itself, is never published. */
static void test_bencher_start_point(void)
{
  char *env[] = {"BENCHER_PROJECT=proj", "BENCHER_HASH=" HEAD,
                 "BENCHER_START_POINT=main", NULL, NULL};
  struct bp_ident id = {0};
  struct bp_err err = {0};
  CHECK_EQ_INT(bpi_ci_detect(&id, env, tmpdir, &err), BP_OK);
  CHECK(id.branch == NULL);
  CHECK_EQ_INT(bpi_publish_ident_defaults(&id, tmpdir, &err), BP_OK);
  CHECK(id.branch == NULL);   /* never "main" */
  CHECK_EQ_INT(bpi_publish_ident_check(&id, &err), BPE_CONFIG);
  CHECK(strstr(err.msg, "BENCHER_BRANCH") != NULL);
  bpi_ident_cleanup(&id);
  env[3] = "BENCHER_BRANCH=main";
  CHECK_EQ_INT(bpi_ci_detect(&id, env, tmpdir, &err), BP_OK);
  CHECK_EQ_INT(bpi_publish_ident_check(&id, &err), BPE_CONFIG);
  bpi_ident_cleanup(&id);
  env[3] = "BENCHER_BRANCH=feature";
  CHECK_EQ_INT(bpi_ci_detect(&id, env, tmpdir, &err), BP_OK);
  CHECK_EQ_INT(bpi_publish_ident_check(&id, &err), BP_OK);
  bpi_ident_cleanup(&id);
}

static void test_nothing(void)
{
  /* no CI, no repository: only the host name */
  char *env[] = {"PATH=/usr/bin:/bin", NULL};
  struct bp_ident id = {0};
  struct bp_err err = {0};
  CHECK_EQ_INT(bpi_ci_detect(&id, env, tmpdir, &err), BP_OK);
  CHECK(id.hash == NULL && id.branch == NULL && id.provider == NULL);
  CHECK(id.testbed != NULL);
  bpi_ident_cleanup(&id);
}

/* bpi_ci_job: the job's provider and project from the variables alone,
 * the same as bpi_ci_detect says them (flush scopes the spool by it). */
static void test_job(void)
{
  static char *github[] = {"GITHUB_ACTIONS=true",
                           "GITHUB_REPOSITORY=acme/widget", NULL};
  static char *github_bencher[] = {"GITHUB_ACTIONS=true",
                                   "GITHUB_REPOSITORY=acme/widget",
                                   "BENCHER_PROJECT=gadget", NULL};
  static char *gitlab[] = {"GITLAB_CI=true", "CI_PROJECT_NAME=gizmo", NULL};
  static char *bencher[] = {"BENCHER_BRANCH=main", NULL};
  static char *no_repo[] = {"GITHUB_ACTIONS=true", "GITHUB_REPOSITORY=",
                            NULL};
  static char *none[] = {"GITHUB_ACTIONS=false", "HOME=/", NULL};
  const struct {
    char **env;
    const char *provider, *project;
  } cases[] = {
    {github, "github", "widget"}, {github_bencher, "github", "gadget"},
    {gitlab, "gitlab", "gizmo"}, {bencher, "bencher", NULL},
    {no_repo, "github", NULL}, {none, NULL, NULL},
  };
  for(size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    const char *project = "unset";
    const char *provider = bpi_ci_job(cases[i].env, &project);
    CHECK(!provider == !cases[i].provider);
    if(provider && cases[i].provider)
      CHECK_EQ_STR(provider, cases[i].provider);
    CHECK(!project == !cases[i].project);
    if(project && cases[i].project)
      CHECK_EQ_STR(project, cases[i].project);
  }
  /* what bpi_ci_detect takes before asking git */
  struct bp_ident id = {0};
  struct bp_err err = {0};
  id.hash = strdup(HEAD);
  id.branch = strdup("main");
  CHECK_EQ_INT(bpi_ci_detect(&id, github_bencher, tmpdir, &err), BP_OK);
  CHECK_EQ_STR(id.provider, "github");
  CHECK_EQ_STR(id.project, "gadget");
  bpi_ident_cleanup(&id);
}

/* bpi_ci_job_dir: one directory name per job, from the variables alone;
 * a matrix's jobs on two runners differ by the runner's name, else by a
 * hash of the runner's RUNNER_TEMP. */
static void test_job_dir(void)
{
  static char *github[] = {"GITHUB_ACTIONS=true", "GITHUB_RUN_ID=4242",
                           "GITHUB_RUN_ATTEMPT=2", "GITHUB_JOB=bench", NULL};
  static char *runner[] = {"GITHUB_ACTIONS=true", "GITHUB_RUN_ID=4242",
                           "GITHUB_JOB=bench", "RUNNER_NAME=box 2/../x",
                           NULL};
  /* no RUNNER_NAME: the runner's RUNNER_TEMP (each runner of a host its
   * own) tells two runners apart; RUNNER_NAME, when set, names it */
  static char *temp1[] = {"GITHUB_ACTIONS=true", "GITHUB_RUN_ID=4242",
                          "GITHUB_JOB=bench",
                          "RUNNER_TEMP=/srv/runner-1/_work/_temp", NULL};
  static char *temp2[] = {"GITHUB_ACTIONS=true", "GITHUB_RUN_ID=4242",
                          "GITHUB_JOB=bench", "RUNNER_NAME=",
                          "RUNNER_TEMP=/srv/runner-2/_work/_temp", NULL};
  static char *named[] = {"GITHUB_ACTIONS=true", "GITHUB_RUN_ID=4242",
                          "GITHUB_JOB=bench", "RUNNER_NAME=box",
                          "RUNNER_TEMP=/srv/runner-1/_work/_temp", NULL};
  static char *gitlab[] = {"GITLAB_CI=true", "CI_JOB_ID=9001",
                           "RUNNER_NAME=ignored",
                           "RUNNER_TEMP=/srv/runner-1/_work/_temp", NULL};
  static char *no_job[] = {"GITHUB_ACTIONS=true", "GITHUB_RUN_ID=4242",
                           NULL};
  static char *bencher[] = {"BENCHER_PROJECT=widget", NULL};
  static char *none[] = {"HOME=/", NULL};
  const struct {
    char **env;
    const char *want;
  } cases[] = {
    {github, "job=github-4242-2-bench"},
    {runner, "job=github-4242-1-bench-box_2-..-x"},
    {temp1, "job=github-4242-1-bench-temp-129b0c62"},
    {temp2, "job=github-4242-1-bench-temp-58413d6f"},
    {named, "job=github-4242-1-bench-box"},
    {gitlab, "job=gitlab-9001"}, {no_job, NULL}, {bencher, NULL},
    {none, NULL},
  };
  for(size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    bool nomem = true;
    char *d = bpi_ci_job_dir(cases[i].env, &nomem);
    CHECK(!nomem);
    if(cases[i].want)
      CHECK_EQ_STR(d, cases[i].want);
    else
      CHECK(d == NULL);
    free(d);
  }
}

/* The repository as publications record it: provider, host, repo (or
 * GitHub's repository id). */
static char *repository(const char *provider, const char *repo,
                        const char *repo_id, const char *api_url)
{
  struct bp_ident id = {.provider = (char *)provider, .repo = (char *)repo,
                        .repo_id = (char *)repo_id,
                        .api_url = (char *)api_url};
  bool nomem = true;
  char *r = bpi_ident_repository(&id, &nomem);
  CHECK(!nomem);
  return r;
}

static void check_repository_id(const char *provider, const char *repo,
                                const char *repo_id, const char *api_url,
                                const char *want)
{
  char *got = repository(provider, repo, repo_id, api_url);
  if(want)
    CHECK_EQ_STR(got, want);
  else
    CHECK(got == NULL);
  free(got);
}

static void check_repository(const char *provider, const char *repo,
                             const char *api_url, const char *want)
{
  check_repository_id(provider, repo, NULL, api_url, want);
}

/* Two repositories are told apart only when both say, in one form. */
static void test_repository_other(void)
{
  CHECK(bpi_repository_other("github:id:1", "github:id:2"));
  CHECK(bpi_repository_other("gitlab:h/1", "gitlab:h/2"));
  CHECK(bpi_repository_other("github:a/x", "github:b/x"));
  CHECK(bpi_repository_other("github:h/id:1", "github:h/id:2"));
  CHECK(!bpi_repository_other("github:id:1", "github:id:1"));
  /* two forges are two repositories, whatever the form */
  CHECK(bpi_repository_other("gitlab:h/1", "github:id:1"));
  CHECK(bpi_repository_other("github:a/x", "gitlab:h/1"));
  CHECK(!bpi_repository_other(NULL, "github:id:1"));
  CHECK(!bpi_repository_other("github:id:1", NULL));
  /* the name form and the id form: perhaps one repository */
  CHECK(!bpi_repository_other("github:a/x", "github:id:1"));
  CHECK(!bpi_repository_other("github:h/id:1", "github:h/a/x"));
}

static void test_repository(void)
{
  check_repository("github", "acme/widget", "https://api.github.com",
                   "github:acme/widget");
  check_repository("github", "acme/widget", NULL, "github:acme/widget");
  /* GitHub Enterprise Server: its host */
  check_repository("github", "acme/widget", "https://GHE.example/api/v3",
                   "github:ghe.example/acme/widget");
  /* GitHub's repository id over owner/name (it survives a transfer) */
  check_repository_id("github", "acme/widget", "123456",
                      "https://api.github.com", "github:id:123456");
  check_repository_id("github", "acme/widget", "123456", NULL,
                      "github:id:123456");
  check_repository_id("github", NULL, "123456", NULL, "github:id:123456");
  check_repository_id("github", "acme/widget", "77",
                      "https://GHE.example/api/v3", "github:ghe.example/id:77");
  /* GitLab's project id is its repo already */
  check_repository_id("gitlab", "12", "99", NULL, "gitlab:12");
  /* a GitLab project id is one instance's: with its host (and port),
   * never a URL's credentials */
  check_repository("gitlab", "12", "https://gitlab.example.com/api/v4",
                   "gitlab:gitlab.example.com/12");
  check_repository("gitlab", "12", "https://u:secret@gl.example:8443/api/v4",
                   "gitlab:gl.example:8443/12");
  check_repository("gitlab", "12", NULL, "gitlab:12");
  /* git, Bencher jobs, nothing: not told apart */
  check_repository("git", NULL, NULL, NULL);
  check_repository("bencher", NULL, NULL, NULL);
  check_repository_id("bencher", "acme/widget", "5", NULL, NULL);
  check_repository(NULL, NULL, NULL, NULL);
  check_repository("github", NULL, "https://api.github.com", NULL);
}

/* GITHUB_REPOSITORY_ID: detected as repo_id when it is a number (repo
 * stays owner/name, for the comment API), copied with the identity, and
 * the repository that publications record; anything else is ignored. */
static void test_github_repository_id(void)
{
  static const struct {
    const char *var, *api, *repo_id, *want;
  } cases[] = {
    {"GITHUB_REPOSITORY_ID=123456", NULL, "123456", "github:id:123456"},
    {"GITHUB_REPOSITORY_ID=123456", "GITHUB_API_URL=https://ghe.example/api/v3",
     "123456", "github:ghe.example/id:123456"},
    {"GITHUB_REPOSITORY_ID=", NULL, NULL, "github:acme/widget"},
    {"GITHUB_REPOSITORY_ID=R_kgDOabc", NULL, NULL, "github:acme/widget"},
    {"GITHUB_REPOSITORY_ID=0123", NULL, NULL, "github:acme/widget"},
    {"HOME=/", "GITHUB_API_URL=https://ghe.example/api/v3", NULL,
     "github:ghe.example/acme/widget"},
  };
  for(size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char *env[] = {"GITHUB_ACTIONS=true", "GITHUB_SHA=" HEAD,
                   "GITHUB_REF_NAME=main", "GITHUB_REPOSITORY=acme/widget",
                   (char *)cases[i].var,
                   (char *)(cases[i].api ? cases[i].api : "HOME=/"), NULL};
    struct bp_ident id = {0}, copy = {0};
    struct bp_err err = {0};
    bool nomem = true;
    CHECK_EQ_INT(bpi_ci_detect(&id, env, tmpdir, &err), BP_OK);
    CHECK_EQ_STR(id.repo, "acme/widget");
    CHECK(!id.repo_id == !cases[i].repo_id);
    if(id.repo_id && cases[i].repo_id) {
      CHECK_EQ_STR(id.repo_id, cases[i].repo_id);
      CHECK_EQ_STR(id.from[BP_IDENT_REPO_ID], "GITHUB_REPOSITORY_ID");
    }
    CHECK_EQ_INT(bpi_ident_copy(&copy, &id), BP_OK);
    char *r = bpi_ident_repository(&copy, &nomem);
    CHECK(!nomem);
    CHECK_EQ_STR(r, cases[i].want);
    free(r);
    /* flush's view of the job: the same repository, without git */
    r = bpi_ci_job_repository(env, &nomem);
    CHECK(!nomem);
    CHECK_EQ_STR(r, cases[i].want);
    free(r);
    bpi_ident_cleanup(&copy);
    bpi_ident_cleanup(&id);
  }
  CHECK_EQ_STR(bpi_ident_field_name(BP_IDENT_REPO_ID), "repo_id");
}

/* bpi_ci_job_repository: the repository bpi_ci_detect's identity names
 * in the same job (a GitLab merge request's project first), NULL outside
 * GitHub and GitLab or when they name none. */
static void test_job_repository(void)
{
  static char *gitlab[] = {"GITLAB_CI=true", "CI_PROJECT_NAME=bench",
                           "CI_PROJECT_ID=11",
                           "CI_API_V4_URL=https://gl.example/api/v4", NULL};
  static char *gitlab_mr[] = {"GITLAB_CI=true", "CI_PROJECT_NAME=bench",
                              "CI_PROJECT_ID=13",
                              "CI_MERGE_REQUEST_PROJECT_ID=12", NULL};
  static char *gitlab_none[] = {"GITLAB_CI=true", "CI_PROJECT_ID=", NULL};
  static char *github_none[] = {"GITHUB_ACTIONS=true", NULL};
  static char *bencher[] = {"BENCHER_PROJECT=bench",
                            "GITHUB_REPOSITORY_ID=5", NULL};
  static char *none[] = {"HOME=/", NULL};
  const struct {
    char **env;
    const char *want;
  } cases[] = {
    {gitlab, "gitlab:gl.example/11"}, {gitlab_mr, "gitlab:12"},
    {gitlab_none, NULL}, {github_none, NULL}, {bencher, NULL}, {none, NULL},
  };
  for(size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    bool nomem = true;
    char *r = bpi_ci_job_repository(cases[i].env, &nomem);
    CHECK(!nomem);
    if(cases[i].want)
      CHECK_EQ_STR(r, cases[i].want);
    else
      CHECK(r == NULL);
    free(r);
  }
}

/* BENCHPROF_HOOKS counts only where it names the job's own provider,
 * and only for the hooks that post a comment (GitHub, GitLab), and only
 * for a run whose output directory is the hooks' BENCHPROF_OUTPUT (also
 * reached another way) or a suite's in it. */
static void test_hooks_post_comment(void)
{
  char out[300], suite[320], dot[330], other[320], notsuite[320];
  snprintf(out, sizeof(out), "BENCHPROF_OUTPUT=%s", tmpdir);
  snprintf(suite, sizeof(suite), "%s/suite=s1", tmpdir);
  snprintf(dot, sizeof(dot), "%s/./suite=s1/..", tmpdir);
  snprintf(other, sizeof(other), "%s/elsewhere", tmpdir);
  snprintf(notsuite, sizeof(notsuite), "%s/s1", tmpdir);
  CHECK(mkdir(suite, 0700) == 0);
  CHECK(mkdir(other, 0700) == 0);
  CHECK(mkdir(notsuite, 0700) == 0);
  char *gh[] = {"GITHUB_ACTIONS=true", "BENCHPROF_HOOKS=github", out, NULL};
  char *gl[] = {"GITLAB_CI=true", "BENCHPROF_HOOKS=gitlab", out, NULL};
  char *gh_noout[] = {"GITHUB_ACTIONS=true", "BENCHPROF_HOOKS=github",
                      NULL};
  char *gh_no[] = {"GITHUB_ACTIONS=true", out, NULL};
  char *gh_other[] = {"GITHUB_ACTIONS=true", "BENCHPROF_HOOKS=gitlab", out,
                      NULL};
  char *outside[] = {"BENCHPROF_HOOKS=github", out, NULL};
  char *bencher[] = {"BENCHER_PROJECT=p", "BENCHPROF_HOOKS=bencher", out,
                     NULL};
  CHECK(bpi_ci_hooks_post_comment(gh, tmpdir));
  CHECK(bpi_ci_hooks_post_comment(gl, tmpdir));
  CHECK(bpi_ci_hooks_post_comment(gh, dot));
  CHECK(bpi_ci_hooks_post_comment(gh, suite));
  CHECK(!bpi_ci_hooks_post_comment(gh, other));
  CHECK(!bpi_ci_hooks_post_comment(gh, notsuite));
  CHECK(!bpi_ci_hooks_post_comment(gh_noout, tmpdir));
  CHECK(!bpi_ci_hooks_post_comment(gh_no, tmpdir));
  CHECK(!bpi_ci_hooks_post_comment(gh_other, tmpdir));
  CHECK(!bpi_ci_hooks_post_comment(outside, tmpdir));
  CHECK(!bpi_ci_hooks_post_comment(bencher, tmpdir));
  rmdir(suite);
  rmdir(other);
  rmdir(notsuite);
}

int main(void)
{
  const char *base = getenv("TMPDIR");
  snprintf(tmpdir, sizeof(tmpdir), "%s/test_ci.XXXXXX",
           base && *base ? base : "/tmp");
  if(!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }
  test_github_push();
  test_github_pull_request();
  test_github_fork();
  test_github_bad_payloads();
  test_gitlab();
  test_gitlab_fork();
  test_bencher();
  test_github_base_head();
  test_github_issue_comment();
  test_gitlab_fork_pipeline_and_merged();
  test_bencher_start_point();
  test_nothing();
  test_job();
  test_job_dir();
  test_repository();
  test_repository_other();
  test_github_repository_id();
  test_job_repository();
  test_hooks_post_comment();
  unlink(write_file("pr.json", ""));
  unlink(write_file("bad.json", ""));
  unlink(write_file("fork.json", ""));
  unlink(write_file("basehead.json", ""));
  rmdir(tmpdir);
  return check_exit();
}

/* ci: who a run is.  Detects the branch, commit, pull request and base
 * from the CI system's environment (GitHub Actions with its event payload,
 * GitLab CI, Bencher runner jobs) or from git in a directory.  The
 * environment is passed in (the library never calls getenv), so tests and
 * the command see the same thing.  Owns: the strings of struct bp_ident. */
#ifndef BP_LIB_CI_H
#define BP_LIB_CI_H

#include "benchprof/benchprof.h"

/* The identity of a run: it keys its Bencher report and its artifacts. */
struct bp_ident {
  char *project;      /* Bencher project slug, the store's first key part */
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
};

/* Fill the fields of id that are still NULL (flags set first win) from
 * envp, then from git in dir.  Never fails for a missing CI: fields it
 * cannot learn stay NULL. */
bp_code bpi_ci_detect(struct bp_ident *id, char *const *envp,
                      const char *dir, struct bp_err *err);

void bpi_ident_cleanup(struct bp_ident *id);

#endif

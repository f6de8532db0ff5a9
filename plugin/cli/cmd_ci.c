/* benchprof ci: the identity of a run as CI detection sees it (ci.h):
 * project, branch, commit, testbed, pull request and base, and where
 * each came from. */
#include "bp_setup.h"
#include "cli.h"
#include "msgs.h"

#include "buf.h"
#include "ci.h"
#include "config.h"
#include "err.h"
#include "publish.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

static void usage(FILE *out)
{
  fprintf(out,
    "usage: benchprof ci [--json] [-C DIR] [--config FILE] [identity flags]\n"
    "       benchprof ci --job-dir\n"
    "\n"
    "Print what benchprof detects about this run: project, branch, commit,\n"
    "testbed, pull request number, base branch and base commit, and where\n"
    "each came from.  In order, each filling what is still unknown: these\n"
    "flags, the configuration (bencher.project, bencher.testbed), a Bencher\n"
    "runner job's BENCHER_* variables, GitHub Actions (GITHUB_* and the\n"
    "event payload), GitLab CI (CI_*), git in DIR, the host name.\n"
    "\n"
    "      --json          one JSON object: the fields, \"from\" with each\n"
    "                      one's source (unknown fields are null)\n"
    "  -C, --dir DIR       where git is asked (default: .)\n"
    "      --config FILE   the configuration (default: $BENCHPROF_CONFIG,\n"
    "                      else " BP_CONFIG_DEFAULT_PATH ")\n"
    "      --project P, --branch B, --hash H, --testbed T, --pr N,\n"
    "      --base-branch B, --base-hash H\n"
    "                      what run and flush would be told by the same flags\n"
    "                      (H: a full commit hash, else exit 2, as run)\n"
    "      --suite NAME    the benchmark step's suite, as run takes it\n"
    "                      (default: bencher.suite, $BENCHPROF_SUITE; none)\n"
    "      --job-dir       only the name of this CI job's directory under a\n"
    "                      shared (absolute) output directory: job=ID from\n"
    "                      GITHUB_RUN_ID, GITHUB_RUN_ATTEMPT, GITHUB_JOB and\n"
    "                      RUNNER_NAME (else a hash of RUNNER_TEMP's path),\n"
    "                      or GitLab's CI_JOB_ID; exit 1 when the job names\n"
    "                      no id\n"
    "  -h, --help          this help\n");
}

static void print_json(struct bp_ident *id, const char *suite)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_ident_json(id, suite, &b);
  if(bpi_buf_failed(&b))
    bp_msg_error("out of memory");
  else
    fwrite(b.data, 1, b.len, stdout);
  bpi_buf_cleanup(&b);
}

static void print_text(struct bp_ident *id, const char *suite)
{
  for(int f = 0; f < BP_IDENT_NFIELDS; f++) {
    const char *v = *bpi_ident_field(id, (enum bp_ident_field)f);
    printf("%-12s %s", bpi_ident_field_name((enum bp_ident_field)f),
           v ? v : "-");
    if(v && id->from[f])
      printf("  (%s)", id->from[f]);
    putchar('\n');
  }
  /* not detected: the step's own (run --suite) */
  printf("%-12s %s\n", "suite", suite ? suite : "-");
}

/* --job-dir: the job's directory name (benchprof-wrap puts a shared
 * output's files in it); the configuration is not read. */
static int print_job_dir(void)
{
  bool nomem;
  char *dir = bpi_ci_job_dir(environ, &nomem);
  if(!dir) {
    if(nomem)
      bp_msg_error("out of memory");
    else
      bp_msg_note("ci: not a CI job that names its id (GITHUB_RUN_ID and "
                  "GITHUB_JOB, or CI_JOB_ID): no job directory");
    return BP_EXIT_ERROR;
  }
  printf("%s\n", dir);
  free(dir);
  return BP_EXIT_OK;
}

/* A flag or the configuration; from says which (ci.h's from[]). */
static bp_code set_given(struct bp_ident *id, enum bp_ident_field f,
                         const char *v, const char *from)
{
  return bpi_ident_set(id, f, v, from);
}

int cmd_ci(int argc, char **argv)
{
  enum { OPT_CONFIG = 256, OPT_SUITE, OPT_JOB_DIR, OPT_FIELD };
  static const struct option longopts[] = {
    {"json", no_argument, NULL, 'j'},
    {"dir", required_argument, NULL, 'C'},
    {"help", no_argument, NULL, 'h'},
    {"config", required_argument, NULL, OPT_CONFIG},
    {"suite", required_argument, NULL, OPT_SUITE},
    {"job-dir", no_argument, NULL, OPT_JOB_DIR},
    /* OPT_FIELD + enum bp_ident_field */
    {"project", required_argument, NULL, OPT_FIELD + BP_IDENT_PROJECT},
    {"branch", required_argument, NULL, OPT_FIELD + BP_IDENT_BRANCH},
    {"hash", required_argument, NULL, OPT_FIELD + BP_IDENT_HASH},
    {"testbed", required_argument, NULL, OPT_FIELD + BP_IDENT_TESTBED},
    {"pr", required_argument, NULL, OPT_FIELD + BP_IDENT_PR},
    {"base-branch", required_argument, NULL, OPT_FIELD + BP_IDENT_BASE_BRANCH},
    {"base-hash", required_argument, NULL, OPT_FIELD + BP_IDENT_BASE_HASH},
    {NULL, 0, NULL, 0},
  };
  bool json = false;
  bool job_dir = false;
  const char *dir = ".";
  const char *config = NULL;
  const char *suite = NULL;
  const char *flags[BP_IDENT_NFIELDS] = {NULL};
  int opt;
  optind = 1;
  while((opt = getopt_long(argc, argv, "C:h", longopts, NULL)) != -1) {
    switch(opt) {
    case 'j':
      json = true;
      break;
    case 'C':
      dir = optarg;
      break;
    case OPT_CONFIG:
      config = optarg;
      break;
    case OPT_SUITE:
      if(bp_cli_suite_option(optarg))
        return BP_EXIT_USAGE;
      suite = optarg;
      break;
    case OPT_JOB_DIR:
      job_dir = true;
      break;
    case 'h':
      usage(stdout);
      return BP_EXIT_OK;
    default:
      if(opt >= OPT_FIELD && opt < OPT_FIELD + BP_IDENT_NFIELDS) {
        /* refused as run refuses it, so that ci shows what run takes */
        if((opt == OPT_FIELD + BP_IDENT_HASH ||
            opt == OPT_FIELD + BP_IDENT_BASE_HASH) &&
           bp_cli_hash_option(opt == OPT_FIELD + BP_IDENT_HASH ? "hash"
                                                               : "base-hash",
                              optarg))
          return BP_EXIT_USAGE;
        flags[opt - OPT_FIELD] = optarg;
        break;
      }
      return bp_cli_bad_option("ci", argv, "C:h", longopts);
    }
  }
  if(optind != argc) {
    bp_msg_error("ci: unexpected argument '%s'", argv[optind]);
    return BP_EXIT_USAGE;
  }
  if(job_dir)
    return print_job_dir();
  struct bp_config cfg;
  if(bp_cli_config_load(&cfg, config, false, "detecting without it") ==
     BP_CLI_CONFIG_FAIL) {
    bpi_config_cleanup(&cfg);
    return BP_EXIT_USAGE;
  }
  struct bp_ident id = {0};
  struct bp_err err = {0};
  bp_code rc = BP_OK;
  /* flags first, then the configuration, then detection (as run does) */
  for(int f = 0; !rc && f < BP_IDENT_NFIELDS; f++)
    rc = set_given(&id, (enum bp_ident_field)f, flags[f], "flag");
  if(!rc)
    rc = set_given(&id, BP_IDENT_PROJECT, cfg.bencher.project,
                   "config bencher.project");
  if(!rc)
    rc = set_given(&id, BP_IDENT_TESTBED, cfg.bencher.testbed,
                   "config bencher.testbed");
  /* the suite as run takes it: the flag, else bencher.suite (and
   * BENCHPROF_SUITE); copied, the configuration goes before printing */
  char *own_suite = NULL;
  if(!suite && cfg.bencher.suite && !(suite = own_suite =
                                      strdup(cfg.bencher.suite)))
    rc = BPE_NOMEM;
  if(rc)
    bpi_err_set(&err, rc, 0, "identity");
  else
    rc = bpi_ci_detect_bases(&id, environ, dir, cfg.base_branches, &err);
  /* and what run fills in when detection found nothing */
  if(!rc)
    rc = bpi_publish_ident_defaults(&id, dir, &err);
  bpi_config_cleanup(&cfg);
  if(rc) {
    bp_msg_err(&err, rc);
    bpi_ident_cleanup(&id);
    free(own_suite);
    /* a variable that is not what it names (a hash, a pull request's
     * number) is the job's definition's mistake, as run says it */
    return rc == BPE_CONFIG ? BP_EXIT_USAGE : BP_EXIT_ERROR;
  }
  if(json)
    print_json(&id, suite);
  else
    print_text(&id, suite);
  free(own_suite);
  /* what run would say before publishing, said here too */
  if(id.warning)
    bp_msg_warn("%s", id.warning);
  if(bpi_publish_ident_check(&id, &err))
    bp_msg_warn("run would not publish: %s", err.msg);
  bpi_ident_cleanup(&id);
  return BP_EXIT_OK;
}

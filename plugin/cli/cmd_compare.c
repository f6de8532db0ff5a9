/* benchprof compare BASE HEAD: two runs of `benchprof run`, each a run
 * directory or a run published to a store (BRANCH@COMMIT, BRANCH@latest,
 * fetched into DIR/.sides/) -> a compare directory (compare.json, comment.md and per benchmark the
 * differential folded stacks and flame graphs).  Prints the summary and
 * where the files are; exits 0 whatever changed (a CI step decides what
 * a regression means for it, from compare.json), except that with
 * --fail-on-regression a confirmed regression exits 3. */
#include "bp_setup.h"
#include "cli.h"
#include "msgs.h"

#include "ci.h"
#include "compare_pr.h"
#include "config.h"
#include "err.h"
#include "rundir.h"
#include "store.h"
#include "storekey.h"
#include "text.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct compare_args {
  const char *base, *head;
  const char *output;
  const char *store, *public_url;
  const char *config;             /* --config */
  const struct bp_config *cfg;    /* the configuration (run's defaults) */
  bool threshold_set, max_functions_set;
  struct bp_cmp_opts cmp;
  struct bp_comment_opts comment;
  bool fail_on_regression;  /* exit 3 on a confirmed regression */
};

static void usage(FILE *out)
{
  fprintf(out,
    "usage: benchprof compare [options] BASE HEAD\n"
    "\n"
    "Compare two runs of 'benchprof run', each its run directory or a run\n"
    "published to a store: BRANCH@COMMIT (a full hash) or BRANCH@latest (the\n"
    "branch's latest run on the testbed).  The reference splits at its last\n"
    "'@' and BRANCH is percent-decoded: feature/x@latest and\n"
    "feature%%2Fx@latest are the same; write '@' in a branch as %%40.  Per\n"
    "benchmark: the change of every measure (flagged when confirmed beyond\n"
    "the threshold; higher throughput is better, higher latency or counts\n"
    "worse), the functions whose share of the samples changed most, and\n"
    "differential flame graphs.\n"
    "Writes " BP_FILE_COMPARE_JSON ", " BP_FILE_COMMENT " (the pull request "
    "comment; post it with\n'benchprof comment') and per benchmark "
    "with its profile on both sides\n" BP_FILE_DIFF_FOLDED ", " BP_FILE_DIFF_SVG
    " (sized by HEAD; red grew, blue shrank) and\n" BP_FILE_DIFF_NEG_SVG
    " (sized by BASE), and " BP_FILE_DIFF_OFFCPU_SVG " when both sides\n"
    "were recorded with --off-cpu.  A benchmark a side has no profile of "
    "(none\nrecorded, or its file missing) is compared by its measures "
    "only, and the\ncomment says so.\n"
    "A base the store could not be read from (no answer, an error, refused\n"
    "credentials; not a missing one) fails, writes " BP_FILE_NO_COMMENT "\n"
    "and removes an earlier " BP_FILE_COMMENT ".\n"
    "\n"
    "  -o, --output DIR        where to write (default: benchprof-compare)\n"
    "  -t, --threshold PCT     flag changes confirmed beyond PCT percent\n"
    "                          (default 5)\n"
    "  -n, --max-functions N   function rows per benchmark in the comment,\n"
    "                          0 to 100; 0: none (default 10)\n"
    "      --base-url URL      where BASE's run directory is served; for the\n"
    "      --head-url URL      viewer links when a run has no publication\n"
    "      --compare-url URL   where DIR will be served (flame graph links)\n"
    "      --store URL         the store of BRANCH@... sides (default: as\n"
    "                          'benchprof run': $XDG_DATA_HOME/benchprof/store)\n"
    "      --public-url URL    where readers load the store's objects\n"
    "      --project NAME      the project and testbed of BRANCH@... sides\n"
    "      --testbed NAME      and the comment's marker (default: as 'run')\n"
    "      --suite NAME        the suite of BRANCH@... sides, and the\n"
    "                          comment's marker and title (default: as 'run':\n"
    "                          bencher.suite, $BENCHPROF_SUITE; none)\n"
    "      --fail-on-regression  exit 3 when a regression is confirmed (not\n"
    "                          for unconfirmed changes); otherwise 0\n"
    "      --config FILE       the configuration 'run' reads (default:\n"
    "                          $BENCHPROF_CONFIG, else " BP_CONFIG_DEFAULT_PATH ");\n"
    "                          its store, S3, network, bencher.project,\n"
    "                          bencher.testbed, comment.threshold and\n"
    "                          comment.max_functions are the defaults\n"
    "  -q, --quiet             no summary (errors still print)\n"
    "  -h, --help              this help\n");
}

static bool parse_pct(const char *s, double *out)
{
  return bpi_text_number(s, BP_TEXT_ABOVE_ZERO, 1e6, out);
}

/* 0..100, as comment.max_functions takes: 0 lists no function rows */
static bool parse_count(const char *s, size_t *out)
{
  uint64_t v;
  if(!bpi_text_u64(s, 0, 100, &v))
    return false;
  *out = (size_t)v;
  return true;
}

static int parse_args(int argc, char **argv, struct compare_args *a)
{
  enum { OPT_BASE_URL = 256, OPT_HEAD_URL, OPT_COMPARE_URL, OPT_PROJECT,
         OPT_TESTBED, OPT_STORE, OPT_PUBLIC_URL, OPT_FAIL, OPT_CONFIG,
         OPT_SUITE };
  static const struct option longopts[] = {
    {"output", required_argument, NULL, 'o'},
    {"threshold", required_argument, NULL, 't'},
    {"max-functions", required_argument, NULL, 'n'},
    {"base-url", required_argument, NULL, OPT_BASE_URL},
    {"head-url", required_argument, NULL, OPT_HEAD_URL},
    {"compare-url", required_argument, NULL, OPT_COMPARE_URL},
    {"project", required_argument, NULL, OPT_PROJECT},
    {"testbed", required_argument, NULL, OPT_TESTBED},
    {"suite", required_argument, NULL, OPT_SUITE},
    {"store", required_argument, NULL, OPT_STORE},
    {"public-url", required_argument, NULL, OPT_PUBLIC_URL},
    {"fail-on-regression", no_argument, NULL, OPT_FAIL},
    {"config", required_argument, NULL, OPT_CONFIG},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
  };
  int opt;
  optind = 1;
  while((opt = getopt_long(argc, argv, "o:t:n:qh", longopts, NULL)) != -1) {
    switch(opt) {
    case 'o':
      a->output = optarg;
      break;
    case 't':
      if(!parse_pct(optarg, &a->cmp.threshold_pct)) {
        bp_msg_error("--threshold wants a percentage above 0, not '%s'",
                     optarg);
        return BP_EXIT_USAGE;
      }
      a->threshold_set = true;
      break;
    case 'n':
      if(!parse_count(optarg, &a->comment.max_functions)) {
        bp_msg_error("--max-functions wants a count from 0 to 100, not "
                     "'%s'",
                     optarg);
        return BP_EXIT_USAGE;
      }
      a->max_functions_set = true;
      break;
    case OPT_BASE_URL:
      a->cmp.base_url = optarg;
      break;
    case OPT_HEAD_URL:
      a->cmp.head_url = optarg;
      break;
    case OPT_COMPARE_URL:
      a->comment.compare_url = optarg;
      break;
    case OPT_PROJECT:
      a->comment.project = optarg;
      break;
    case OPT_TESTBED:
      a->comment.testbed = optarg;
      break;
    case OPT_SUITE:
      if(bp_cli_suite_option(optarg))
        return BP_EXIT_USAGE;
      a->comment.suite = optarg;
      break;
    case OPT_STORE:
      if(bp_cli_url_option("store", optarg, BP_URL_STORE))
        return BP_EXIT_USAGE;
      a->store = optarg;
      break;
    case OPT_PUBLIC_URL:
      if(bp_cli_url_option("public-url", optarg, BP_URL_HTTP))
        return BP_EXIT_USAGE;
      a->public_url = optarg;
      break;
    case OPT_FAIL:
      a->fail_on_regression = true;
      break;
    case OPT_CONFIG:
      a->config = optarg;
      break;
    case 'q':
      bp_msg_set_quiet(1);
      break;
    case 'h':
      usage(stdout);
      return BP_EXIT_OK;
    default:
      return bp_cli_bad_option("compare", argv, "o:t:n:qh", longopts);
    }
  }
  if(argc - optind != 2) {
    bp_msg_error("compare wants two runs, each a run directory or "
                 "BRANCH@COMMIT (usage: benchprof compare [options] BASE "
                 "HEAD)");
    return BP_EXIT_USAGE;
  }
  a->base = argv[optind];
  a->head = argv[optind + 1];
  return -1;
}

/* The diffs' file names for the summary: diff.offcpu.svg too when
 * benchmarks have one (both sides recorded with --off-cpu), said of how
 * many when not all of them. */
static void diff_files(const struct bp_cmp *c, size_t diffs,
                       struct bp_buf *b)
{
  size_t offs = 0;
  for(size_t i = 0; i < c->nbenches; i++)
    offs += bpi_compare_has_off_diff(&c->benches[i]);
  bpi_buf_adds(b, BP_FILE_DIFF_FOLDED ", " BP_FILE_DIFF_SVG ", "
               BP_FILE_DIFF_NEG_SVG);
  if(offs && offs >= diffs)
    bpi_buf_adds(b, ", " BP_FILE_DIFF_OFFCPU_SVG);
  else if(offs)
    bpi_buf_printf(b, " (and " BP_FILE_DIFF_OFFCPU_SVG " for %zu with "
                   "off-CPU stacks on both sides)", offs);
  bpi_buf_addc(b, '\0');
}

static void print_summary(const struct bp_cmp *c, const char *out)
{
  struct bp_buf counts, files;
  bpi_buf_init(&counts);
  bpi_compare_counts_text(c, &counts);
  bpi_buf_addc(&counts, '\0');
  bp_msg_note("%s (threshold %.4g%%)", bpi_buf_failed(&counts) ? "?" :
              counts.data, c->threshold_pct);
  bpi_buf_cleanup(&counts);
  bp_cli_compare_benches(c);
  /* only what was written: no diffs when no benchmark has both profiles */
  size_t diffs = bpi_compare_ndiffs(c);
  size_t folders = bpi_compare_ndiff_folders(c);
  bpi_buf_init(&files);
  diff_files(c, diffs, &files);
  const char *names = bpi_buf_failed(&files) ? "?" : files.data;
  if(diffs && folders < diffs)   /* benchmarks sharing one profile */
    bp_msg_note("written to %s/: " BP_FILE_COMPARE_JSON ", " BP_FILE_COMMENT
                ", and %s in %zu folder%s for %zu benchmarks (benchmarks "
                "that share the whole run's profile share its diffs)", out,
                names, folders, folders == 1 ? "" : "s", diffs);
  else if(diffs)
    bp_msg_note("written to %s/: " BP_FILE_COMPARE_JSON ", " BP_FILE_COMMENT
                ", and %s of %zu benchmark%s", out, names, diffs,
                diffs == 1 ? "" : "s");
  else
    bp_msg_note("written to %s/: " BP_FILE_COMPARE_JSON ", " BP_FILE_COMMENT
                " (no differential flame graph: no benchmark has a sampled "
                "profile on both sides)", out);
  bpi_buf_cleanup(&files);
}

static bool is_dir(const char *path)
{
  struct stat st;
  return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* arg as a side: a run directory (a missing one: compare says so), or a
 * store reference (*ref filled, parsed already). */
static void to_side(const char *arg, struct bp_cmp_ref *ref,
                    struct bp_pr_side *side)
{
  *side = (struct bp_pr_side){.dir = arg};
  if(is_dir(arg) || !strchr(arg, '@'))
    return;
  struct bp_err ignored = {0};
  if(!bpi_compare_parse_ref(arg, ref, &ignored))
    *side = (struct bp_pr_side){.branch = ref->branch,
                                .commit = ref->commit};
}

/* A malformed reference is a bad command line, found before any fetch. */
static int check_refs(const struct compare_args *a)
{
  const char *args[] = {a->base, a->head};
  for(size_t i = 0; i < 2; i++) {
    struct bp_cmp_ref ref;
    struct bp_err err = {0};
    if(is_dir(args[i]) || !strchr(args[i], '@'))
      continue;
    if(bpi_compare_parse_ref(args[i], &ref, &err)) {
      bp_msg_err(&err, err.code);
      return BP_EXIT_USAGE;
    }
    bpi_compare_ref_cleanup(&ref);
  }
  return -1;
}

/* The store sides are read from (said why when it cannot be opened). */
static bool open_store(const struct compare_args *a, struct bp_ident *id,
                       struct bp_store **st)
{
  /* the configuration's store and identity, as run uses them; flags
   * win */
  struct bp_cli_publish p;
  bp_cli_publish_defaults(&p);
  if(a->cfg)
    bp_cli_publish_config(&p, a->cfg);
  if(a->store)
    p.store = a->store;
  if(a->public_url)
    p.public_url = a->public_url;
  p.project = a->comment.project;
  p.testbed = a->comment.testbed;
  return bp_cli_publish_store(&p, id, st);
}

/* The configuration's values as the defaults of what no flag set. */
static void config_defaults(struct compare_args *a,
                            const struct bp_config *cfg)
{
  a->cfg = cfg;
  if(!a->threshold_set)
    a->cmp.threshold_pct = cfg->comment.threshold;
  a->cmp.wall_time_counted = cfg->comment.wall_time_counted;
  if(!a->max_functions_set)
    a->comment.max_functions = cfg->comment.max_functions;
  a->comment.no_functions = a->comment.max_functions == 0;
  if(!a->comment.project)
    a->comment.project = cfg->bencher.project;
  if(!a->comment.testbed)
    a->comment.testbed = cfg->bencher.testbed;
  if(!a->comment.suite)
    a->comment.suite = cfg->bencher.suite;
  if(cfg->comment.fail_on_regression)
    a->fail_on_regression = true;
}

static void say_key(const char *name, const char *key,
                    const struct bp_store *st)
{
  if(key)
    bp_msg_note("%s: %s (%s)", name, key, bpi_store_url(st));
}

static int compare_with(struct compare_args *a);

int cmd_compare(int argc, char **argv)
{
  struct compare_args a = {.output = "benchprof-compare"};
  int status = parse_args(argc, argv, &a);
  if(status < 0)
    status = check_refs(&a);
  if(status >= 0)
    return status;
  /* strict: with a configuration that cannot be read, the sides would be
   * looked for in another store than run's, and not found or wrong */
  struct bp_config cfg;
  if(bp_cli_config_load(&cfg, a.config, true, "comparing without it") !=
     BP_CLI_CONFIG_OK) {
    bpi_config_cleanup(&cfg);
    return BP_EXIT_USAGE;
  }
  config_defaults(&a, &cfg);
  status = compare_with(&a);
  bpi_config_cleanup(&cfg);
  return status;
}

static int compare_with(struct compare_args *ap)
{
  struct compare_args a = *ap;
  struct bp_err err = {0};
  int status;
  struct bp_cmp_ref refs[2] = {{NULL, NULL}, {NULL, NULL}};
  struct bp_pr_opts o = {.out = a.output, .cmp = a.cmp,
                         .comment = a.comment};
  struct bp_ident id = {0};
  to_side(a.base, &refs[0], &o.base);
  to_side(a.head, &refs[1], &o.head);
  bool stored = !o.base.dir || !o.head.dir;
  if(stored && !open_store(&a, &id, &o.st))
    status = BP_EXIT_ERROR;
  else {
    struct bp_pr_result r;
    o.project = id.project;
    o.testbed = id.testbed;
    o.suite = a.comment.suite;
    /* a head in the store at a commit: its diff.svg files, verdict and
     * comment go into the store beside it, as `run` puts them (the
     * comment's links, the store's pages) */
    struct bp_store_run head_run = {id.project, o.head.branch,
                                    o.head.commit, id.testbed,
                                    a.comment.suite};
    if(o.st && !o.head.dir && o.head.commit && id.project && id.testbed)
      o.diff_run = &head_run;
    bp_code rc = bpi_compare_pr(&o, &r, &err);
    say_key("base", r.base_key, o.st);
    say_key("head", r.head_key, o.st);
    if(rc) {
      if(r.base_unread)   /* what, where, and what to do */
        bp_cli_say_base_unread(&r, o.st, a.cfg, -1, true, a.output);
      else
        bp_msg_err(&err, rc);
      if(r.suite_hint)
        bp_msg_note("compare: %s", r.suite_hint);
      status = BP_EXIT_ERROR;
    }
    else {
      if(r.diff_failures)
        bp_msg_warn("compare: %s", r.diff_error.msg);
      print_summary(r.cmp, a.output);
      status = bp_cli_gate(a.fail_on_regression, r.cmp, BP_EXIT_OK);
    }
    bpi_pr_result_cleanup(&r);
  }
  bpi_store_close(o.st);
  bpi_ident_cleanup(&id);
  bpi_compare_ref_cleanup(&refs[0]);
  bpi_compare_ref_cleanup(&refs[1]);
  return status;
}

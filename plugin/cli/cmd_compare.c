/* benchprof compare BASE HEAD: two runs of `benchprof run`, each a run
 * directory or a run published to a store (BRANCH@COMMIT, BRANCH@latest,
 * fetched into DIR/.sides/) -> a compare directory (compare.json, comment.md and per benchmark the
 * differential folded stacks and flame graphs).  Prints the summary and
 * where the files are; exits 0 whatever changed (a CI step decides what
 * a regression means for it, from compare.json). */
#include "bp_setup.h"
#include "cli.h"
#include "msgs.h"

#include "buf.h"
#include "comment.h"
#include "compare.h"
#include "config.h"
#include "err.h"
#include "fileio.h"
#include "profile.h"
#include "ci.h"
#include "store.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
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
    "benchmark: the change of every measure (flagged beyond the threshold; higher\n"
    "throughput is better, higher latency or counts worse), the functions\n"
    "whose share of the samples changed most, and differential flame graphs.\n"
    "Writes compare.json, comment.md (the pull request comment; post it with\n"
    "'benchprof comment') and per benchmark diff.folded, diff.svg (sized by\n"
    "HEAD; red grew, blue shrank) and diff-negated.svg (sized by BASE).\n"
    "\n"
    "  -o, --output DIR        where to write (default: benchprof-compare)\n"
    "  -t, --threshold PCT     flag changes beyond PCT percent (default 2)\n"
    "  -n, --max-functions N   function rows per benchmark in the comment\n"
    "                          (default 10)\n"
    "      --base-url URL      where BASE's run directory is served; for the\n"
    "      --head-url URL      viewer links when a run has no publication\n"
    "      --compare-url URL   where DIR will be served (flame graph links)\n"
    "      --store URL         the store of BRANCH@... sides (default: as\n"
    "                          'benchprof run': $XDG_DATA_HOME/benchprof/store)\n"
    "      --public-url URL    where readers load the store's objects\n"
    "      --project NAME      the project and testbed of BRANCH@... sides\n"
    "      --testbed NAME      and the comment's marker (default: as 'run')\n"
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
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if(end == s || *end || errno || !(v > 0) || v > 1e6)
    return false;
  *out = v;
  return true;
}

static bool parse_count(const char *s, size_t *out)
{
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if(end == s || *end || errno || *s == '-' || v == 0 || v > 100000)
    return false;
  *out = (size_t)v;
  return true;
}

static int parse_args(int argc, char **argv, struct compare_args *a)
{
  enum { OPT_BASE_URL = 256, OPT_HEAD_URL, OPT_COMPARE_URL, OPT_PROJECT,
         OPT_TESTBED, OPT_STORE, OPT_PUBLIC_URL, OPT_CONFIG };
  static const struct option longopts[] = {
    {"output", required_argument, NULL, 'o'},
    {"threshold", required_argument, NULL, 't'},
    {"max-functions", required_argument, NULL, 'n'},
    {"base-url", required_argument, NULL, OPT_BASE_URL},
    {"head-url", required_argument, NULL, OPT_HEAD_URL},
    {"compare-url", required_argument, NULL, OPT_COMPARE_URL},
    {"project", required_argument, NULL, OPT_PROJECT},
    {"testbed", required_argument, NULL, OPT_TESTBED},
    {"store", required_argument, NULL, OPT_STORE},
    {"public-url", required_argument, NULL, OPT_PUBLIC_URL},
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
        bp_msg_error("--max-functions wants a count from 1, not '%s'",
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
    case OPT_STORE:
      a->store = optarg;
      break;
    case OPT_PUBLIC_URL:
      a->public_url = optarg;
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
      usage(stderr);
      return BP_EXIT_USAGE;
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

/* A regression is explained by what grew, an improvement by what shrank. */
static const char *top_verb(const struct bp_cmp_bench *b)
{
  return b->flag == BP_CMP_REGRESSION ? "grew" : "shrank";
}

static void print_summary(const struct bp_cmp *c, const char *out)
{
  bp_msg_note("%zu regression%s, %zu improvement%s, %zu unchanged, "
              "%zu new, %zu removed (threshold %.4g%%)",
              c->nregressions, c->nregressions == 1 ? "" : "s",
              c->nimprovements, c->nimprovements == 1 ? "" : "s",
              c->nunchanged, c->nnew, c->nremoved, c->threshold_pct);
  struct bp_buf name, fn, slug;
  bpi_buf_init(&name);
  bpi_buf_init(&fn);
  bpi_buf_init(&slug);
  for(size_t i = 0; i < c->nbenches; i++) {
    const struct bp_cmp_bench *b = &c->benches[i];
    if(b->presence != BP_CMP_BOTH || !b->flag)
      continue;
    const struct bp_cmp_func *top = bpi_compare_top_func(b,
      b->flag == BP_CMP_REGRESSION);
    /* names are the benchmark's own: no control characters reach the
     * terminal or a CI log (where a line may be read as a command) */
    bpi_buf_reset(&name);
    bpi_buf_reset(&fn);
    bpi_buf_reset(&slug);
    bpi_profile_clean_name(&name, b->name, '\0');
    bpi_profile_clean_name(&slug, b->max_slug ? b->max_slug : "-", '\0');
    bpi_profile_clean_name(&fn, top ? top->name : "-", '\0');
    if(bpi_buf_failed(&name) || bpi_buf_failed(&fn) || bpi_buf_failed(&slug))
      break;
    if(isnan(b->max_pct))
      bp_msg_note("  %s: %s from 0 (%s); function that %s most: %s",
                  name.data, slug.data, b->flag == BP_CMP_REGRESSION ?
                  "regression" : "improvement", top_verb(b), fn.data);
    else
      bp_msg_note("  %s: %s %+.2f%% (%s); function that %s most: %s",
                  name.data, slug.data, b->max_pct,
                  b->flag == BP_CMP_REGRESSION ? "regression" :
                  "improvement", top_verb(b), fn.data);
  }
  bpi_buf_cleanup(&name);
  bpi_buf_cleanup(&fn);
  bpi_buf_cleanup(&slug);
  bp_msg_note("written to %s/: compare.json, comment.md, and per benchmark "
              "diff.folded, diff.svg, diff-negated.svg", out);
}

/* The store sides are read from, opened once. */
struct sides {
  struct bp_ident id;
  struct bp_store *st;
  bool opened;
};

static bool is_dir(const char *path)
{
  struct stat st;
  return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* A side's run directory: arg itself, or arg (BRANCH@COMMIT) fetched from
 * the store into OUTPUT/.sides/name.  NULL when it cannot be (said why). */
static char *side(const struct compare_args *a, struct sides *s,
                  const char *arg, const char *name)
{
  struct bp_err err = {0};
  struct bp_cmp_ref ref;
  char *key = NULL, *dir = NULL;
  if(is_dir(arg) || !strchr(arg, '@'))
    return strdup(arg);   /* a missing directory: compare says so */
  if(bpi_compare_parse_ref(arg, &ref, &err)) {
    bp_msg_err(&err, err.code);
    return NULL;
  }
  if(!s->opened) {
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
    s->opened = true;
    if(!bp_cli_publish_store(&p, &s->id, &s->st))
      goto out;
  }
  if(!s->st)
    goto out;
  struct bp_buf d;
  bpi_buf_init(&d);
  bpi_buf_printf(&d, "%s/.sides/%s", a->output, name);
  bp_code rc = bpi_buf_failed(&d) ? BPE_NOMEM :
    bpi_compare_locate(s->st, s->id.project, ref.branch, ref.commit,
                       s->id.testbed, &key, &err);
  if(!rc)
    rc = bpi_compare_fetch(s->st, key, d.data, &err);
  if(rc) {
    bp_msg_err(&err, rc);
    bpi_buf_cleanup(&d);
  }
  else {
    bp_msg_note("%s: %s (%s)", name, key, bpi_store_url(s->st));
    dir = d.data;
  }
out:
  free(key);
  bpi_compare_ref_cleanup(&ref);
  return dir;
}

static int compare_with(struct compare_args *ap,
                        const struct bp_config *cfg);

int cmd_compare(int argc, char **argv)
{
  struct compare_args a = {.output = "benchprof-compare"};
  int status = parse_args(argc, argv, &a);
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
  status = compare_with(&a, &cfg);
  bpi_config_cleanup(&cfg);
  return status;
}

/* The configuration's values as the defaults of what no flag set. */
static void config_defaults(struct compare_args *a,
                            const struct bp_config *cfg)
{
  a->cfg = cfg;
  if(!a->threshold_set)
    a->cmp.threshold_pct = cfg->comment.threshold;
  if(!a->max_functions_set)
    a->comment.max_functions = cfg->comment.max_functions;
  if(!a->comment.project)
    a->comment.project = cfg->bencher.project;
  if(!a->comment.testbed)
    a->comment.testbed = cfg->bencher.testbed;
}

static int compare_with(struct compare_args *ap, const struct bp_config *cfg)
{
  struct compare_args a = *ap;
  struct bp_err err = {0};
  struct bp_cmp *c = NULL;
  struct bp_buf md, path;
  int status;
  config_defaults(&a, cfg);
  /* a malformed reference is a bad command line, found before any fetch */
  const char *args[] = {a.base, a.head};
  for(size_t i = 0; i < 2; i++) {
    struct bp_cmp_ref ref;
    if(is_dir(args[i]) || !strchr(args[i], '@'))
      continue;
    if(bpi_compare_parse_ref(args[i], &ref, &err)) {
      bp_msg_err(&err, err.code);
      return BP_EXIT_USAGE;
    }
    bpi_compare_ref_cleanup(&ref);
  }
  struct sides s = {.st = NULL};
  char *base = side(&a, &s, a.base, "base");
  char *head = base ? side(&a, &s, a.head, "head") : NULL;
  bpi_store_close(s.st);
  bpi_ident_cleanup(&s.id);
  if(!base || !head) {
    free(base);
    free(head);
    return BP_EXIT_ERROR;
  }
  bpi_buf_init(&md);
  bpi_buf_init(&path);
  bp_code rc = bpi_compare_dirs(base, head, &a.cmp, &c, &err);
  if(!rc)
    rc = bpi_compare_write(c, a.output, &err);
  if(!rc)
    rc = bpi_comment_markdown(c, &a.comment, &md, &err);
  if(!rc) {
    bpi_buf_printf(&path, "%s/comment.md", a.output);
    rc = bpi_buf_failed(&path) ? BPE_NOMEM :
      bpi_file_write(path.data, md.data, md.len, false, &err);
  }
  if(rc) {
    bp_msg_err(&err, rc);
    status = BP_EXIT_ERROR;
  }
  else {
    print_summary(c, a.output);
    status = BP_EXIT_OK;
  }
  bpi_buf_cleanup(&path);
  bpi_buf_cleanup(&md);
  bpi_compare_free(c);
  free(base);
  free(head);
  return status;
}

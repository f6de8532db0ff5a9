/* benchprof compare BASE HEAD: two run directories of `benchprof run` ->
 * a compare directory (compare.json, comment.md and per benchmark the
 * differential folded stacks and flame graphs).  Prints the summary and
 * where the files are; exits 0 whatever changed (a CI step decides what
 * a regression means for it, from compare.json). */
#include "bp_setup.h"
#include "cli.h"
#include "msgs.h"

#include "buf.h"
#include "comment.h"
#include "compare.h"
#include "err.h"
#include "fileio.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct compare_args {
  const char *base, *head;
  const char *output;
  struct bp_cmp_opts cmp;
  struct bp_comment_opts comment;
};

static void usage(FILE *out)
{
  fprintf(out,
    "usage: benchprof compare [options] BASE HEAD\n"
    "\n"
    "Compare two run directories written by 'benchprof run': per benchmark\n"
    "the change of every measure (flagged beyond the threshold; higher\n"
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
    "      --project NAME      project and testbed in the comment's marker\n"
    "      --testbed NAME      (default: the publication's)\n"
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
         OPT_TESTBED };
  static const struct option longopts[] = {
    {"output", required_argument, NULL, 'o'},
    {"threshold", required_argument, NULL, 't'},
    {"max-functions", required_argument, NULL, 'n'},
    {"base-url", required_argument, NULL, OPT_BASE_URL},
    {"head-url", required_argument, NULL, OPT_HEAD_URL},
    {"compare-url", required_argument, NULL, OPT_COMPARE_URL},
    {"project", required_argument, NULL, OPT_PROJECT},
    {"testbed", required_argument, NULL, OPT_TESTBED},
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
      break;
    case 'n':
      if(!parse_count(optarg, &a->comment.max_functions)) {
        bp_msg_error("--max-functions wants a count from 1, not '%s'",
                     optarg);
        return BP_EXIT_USAGE;
      }
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
    bp_msg_error("compare wants two run directories (usage: benchprof "
                 "compare [options] BASE HEAD)");
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
  for(size_t i = 0; i < c->nbenches; i++) {
    const struct bp_cmp_bench *b = &c->benches[i];
    if(b->presence != BP_CMP_BOTH || !b->flag)
      continue;
    const struct bp_cmp_func *top = bpi_compare_top_func(b,
      b->flag == BP_CMP_REGRESSION);
    const char *fn = top ? top->name : "-";
    if(isnan(b->max_pct))
      bp_msg_note("  %s: %s from 0 (%s); function that %s most: %s",
                  b->name, b->max_slug, b->flag == BP_CMP_REGRESSION ?
                  "regression" : "improvement", top_verb(b), fn);
    else
      bp_msg_note("  %s: %s %+.2f%% (%s); function that %s most: %s",
                  b->name, b->max_slug, b->max_pct,
                  b->flag == BP_CMP_REGRESSION ? "regression" :
                  "improvement", top_verb(b), fn);
  }
  bp_msg_note("written to %s/: compare.json, comment.md, and per benchmark "
              "diff.folded, diff.svg, diff-negated.svg", out);
}

int cmd_compare(int argc, char **argv)
{
  struct compare_args a = {.output = "benchprof-compare"};
  struct bp_err err = {0};
  struct bp_cmp *c = NULL;
  struct bp_buf md, path;
  int status = parse_args(argc, argv, &a);
  if(status >= 0)
    return status;
  bpi_buf_init(&md);
  bpi_buf_init(&path);
  bp_code rc = bpi_compare_dirs(a.base, a.head, &a.cmp, &c, &err);
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
  return status;
}

/* The options `benchprof record` and `benchprof run` share: defaults,
 * the configuration's values under them, parsing (with the call-graph
 * grammar) and the help of the record options. */
#include "bp_setup.h"
#include "cli.h"
#include "msgs.h"

#include "config.h"
#include "counters.h"
#include "err.h"
#include "export.h"
#include "record.h"
#include "text.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_EVENT "cycles"
#define DEFAULT_FREQ 997
#define DEFAULT_OUTPUT "benchprof-out"

static void usage(FILE *out, bool run)
{
  if(run)
    bp_cli_run_usage(out);
  if(run) {
    bp_cli_publish_usage(out, true);
    fprintf(out, "\nand the options of benchprof record:\n");
  }
  else
    fprintf(out,
      "usage: benchprof record [options] [--] CMD [ARGS...]\n"
      "\n"
      "Run CMD, sample it and every thread and child it starts, and write\n"
      "profile artifacts.  Exits with CMD's status (128+N if signal N killed it).\n"
      "\n");
  fprintf(out,
    "  -e, --event EVENT      libpfm4 event to sample (default: cycles), perf's\n"
    "                         modifiers too (:u :k :p :pp :ppp :P); without\n"
    "                         a hardware PMU the software clock is used instead\n"
    "  -F, --freq HZ          samples per second (default: 997)\n"
    "  -c, --period N         sample every N events instead of -F\n"
    "  -g, --call-graph MODE  how stacks are recorded: fp (frame pointers),\n"
    "                         dwarf[,BYTES] (registers and BYTES of user stack\n"
    "                         per sample, default 8192, unwound after the run)\n"
    "                         auto (both; per sample the better; default)\n"
    "                         or lbr (Intel LBR call stacks, user space; auto\n"
    "                         where the PMU refuses them)\n"
    "  -k, --kernel           sample kernel time too, even where benchprof\n"
    "                         thinks it is not permitted (by default it is\n"
    "                         sampled where perf_event_paranoid <= 1,\n"
    "                         CAP_PERFMON or root permit it; config\n"
    "                         record.kernel)\n"
    "      --all-user         sample user space only (the share of CPU time\n"
    "                         left out is stated)\n"
    "      --off-cpu          record off-CPU time too: every interval a thread\n"
    "                         waits (blocked or preempted), charged to its stack\n"
    "                         when it left the CPU (" BP_FILE_OFFCPU_FOLDED ",\n"
    "                         " BP_FILE_OFFCPU_SVG ", and in every other\n"
    "                         artifact; config record.off_cpu)\n"
    "  -m, --mmap-pages N     data pages per CPU ring, a power of two (default:\n"
    "                         2 MiB with fp; with stack copies 64 MiB in all,\n"
    "                         2 to 32 MiB per CPU; config record.ring_mib)\n"
    "  -o, --output DIR       where artifacts go (default: ./benchprof-out,\n"
    "                         config output, $BENCHPROF_OUTPUT; run with a\n"
    "                         suite: its subdirectory suite=NAME, unless -o)\n"
    "      --no-demangle      keep C++ and Rust symbol names mangled\n"
    "      --no-inline        no frames of their own for inlined calls (they\n"
    "                         count to the function they were inlined in)\n"
    "      --debuginfod[=URLS]  ask these debuginfod servers (default: config\n"
    "                         symbols.debuginfod, else $DEBUGINFOD_URLS) for\n"
    "                         the debug files missing on this machine, cached\n"
    "                         on disk (off by default: no server is asked)\n"
    "      --no-debuginfod    ask none, whatever the configuration says\n"
    "  -C, --counters LIST    events to count in the same run (default:\n"
    "                         instructions,cycles,branches,branch-misses,\n"
    "                         cache-references,cache-misses,task-clock,\n"
    "                         page-faults)\n"
    "      --no-counters      count nothing\n"
    "  -q, --quiet            no summary on stderr\n"
    "      --config FILE      the configuration (default: $BENCHPROF_CONFIG,\n"
    "                         else " BP_CONFIG_DEFAULT_PATH "); its values\n"
    "                         are the defaults of these options\n"
    "%s"
    "  -h, --help             this help\n"
    "\n"
    "Artifacts: " BP_FILE_GECKO " (Firefox Profiler), " BP_FILE_PPROF
    " (pprof),\n" BP_FILE_FOLDED ", " BP_FILE_SVG ", " BP_FILE_SUMMARY
    ".  Benchmarks CMD marks on\n"
    "the FIFO named by $BENCHPROF_CONTROL (benchprof/hooks.h) get their own\n"
    "in DIR/<benchmark>/.\n",
    run ? "" : "      --strict           an invalid configuration fails (exit 2)\n");
}

/* fp | dwarf[,BYTES] | auto | lbr (text.c); false (after saying why) when
 * not.  Without BYTES the size stays what it was (the configuration's). */
static bool parse_call_graph(const char *s, struct bp_record_opts *o)
{
  struct bp_err err = {0};
  uint32_t bytes;
  if(bpi_text_call_graph(s, BP_RECORD_MAX_STACK_BYTES, &o->call_graph,
                         &bytes, &err)) {
    bp_msg_error("--call-graph: %s", err.msg);
    return false;
  }
  if(bytes)
    o->stack_bytes = bytes;
  return true;
}

/* --debuginfod[=URLS]: these servers; without URLS the configuration's
 * (symbols.debuginfod), else the system's ($DEBUGINFOD_URLS).  False
 * (after saying why) when there are none. */
static bool parse_debuginfod(const char *urls, struct bp_record_args *a)
{
  struct bp_record_opts *o = &a->rec;
  if(urls && !*urls) {
    bp_msg_error("--debuginfod=: no server URL given");
    return false;
  }
  if(!urls && o->debuginfod)
    return true;
  if(!urls)
    urls = getenv("DEBUGINFOD_URLS");
  if(!urls || !urls[strspn(urls, " \t")]) {
    bp_msg_error("--debuginfod: no debuginfod server: give "
                 "--debuginfod=URLS, symbols.debuginfod in the "
                 "configuration, or DEBUGINFOD_URLS");
    return false;
  }
  if(urls == getenv("DEBUGINFOD_URLS")) {
    /* the environment's string changes when the variable is set again:
     * keep a copy */
    free(a->debuginfod_env);
    if(!(a->debuginfod_env = strdup(urls))) {
      bp_msg_error("out of memory");
      return false;
    }
    urls = a->debuginfod_env;
  }
  o->debuginfod = urls;
  return true;
}

/* Options without a short form beyond the publishing and run ones. */
enum { OPT_CONFIG = BP_CLI_RUN_LAST, OPT_NO_INLINE, OPT_ALL_USER,
       OPT_OFF_CPU, OPT_DEBUGINFOD, OPT_NO_DEBUGINFOD };

/* '+': stop at the first non-option, so CMD's own options stay its own */
#define SHORTOPTS "+e:F:c:g:km:o:qhvC:"

static const struct option longopts[] = {
    {"event", required_argument, NULL, 'e'},
    {"freq", required_argument, NULL, 'F'},
    {"period", required_argument, NULL, 'c'},
    {"call-graph", required_argument, NULL, 'g'},
    {"kernel", no_argument, NULL, 'k'},
    {"all-user", no_argument, NULL, OPT_ALL_USER},
    {"off-cpu", no_argument, NULL, OPT_OFF_CPU},
    {"mmap-pages", required_argument, NULL, 'm'},
    {"output", required_argument, NULL, 'o'},
    {"no-demangle", no_argument, NULL, 'D'},
    {"no-inline", no_argument, NULL, OPT_NO_INLINE},
    {"debuginfod", optional_argument, NULL, OPT_DEBUGINFOD},
    {"no-debuginfod", no_argument, NULL, OPT_NO_DEBUGINFOD},
    {"counters", required_argument, NULL, 'C'},
    {"no-counters", no_argument, NULL, 'N'},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {"config", required_argument, NULL, OPT_CONFIG},
    BP_CLI_RUN_LONGOPTS,
    BP_CLI_PUBLISH_LONGOPTS,
    {NULL, 0, NULL, 0},
};

void bp_cli_record_prescan(int argc, char **argv, const char **config,
                           bool *strict)
{
  int opt;
  *config = NULL;
  *strict = false;
  optind = 1;   /* silent (main set opterr 0): the real pass reports */
  while((opt = getopt_long(argc, argv, SHORTOPTS, longopts, NULL)) != -1) {
    if(opt == OPT_CONFIG)
      *config = optarg;
    else if(opt == BP_CLI_PUB_STRICT)
      *strict = true;
  }
  optind = 1;
}

void bp_cli_record_config(struct bp_record_args *a, const struct bp_config *c)
{
  bpi_config_record_opts(c, &a->rec);
  if(c->output)
    a->output = c->output;
  if(a->run) {
    bp_cli_publish_config(&a->pub, c);
    if(c->record.repeat)
      a->repeat = (unsigned)c->record.repeat;
  }
  a->pub.strict = c->strict;
}

int bp_cli_record_args(int argc, char **argv, struct bp_record_args *a)
{
  uint64_t v;
  int opt;
  bool freq_given = false, period_given = false;
  optind = 1;
  while((opt = getopt_long(argc, argv, SHORTOPTS, longopts, NULL)) != -1) {
    switch(opt) {
    case OPT_CONFIG:
      break;  /* read before the options (bp_cli_record_prescan) */
    case BP_CLI_PUB_STRICT:
      a->pub.strict = true;  /* record: an invalid configuration fails */
      break;
    case 'e':
      a->rec.event = optarg;
      break;
    case 'F':
      if(!bpi_text_u64(optarg, 1, 1000000, &v)) {
        bp_msg_error("-F: '%s' is not a frequency in Hz (1 to 1000000)",
                     optarg);
        return BP_EXIT_USAGE;
      }
      a->rec.freq = v;
      a->rec.period = 0;
      freq_given = true;
      break;
    case 'c':
      if(!bpi_text_u64(optarg, 1, UINT64_MAX / 2, &v)) {
        bp_msg_error("-c: '%s' is not a positive period", optarg);
        return BP_EXIT_USAGE;
      }
      a->rec.period = v;
      a->rec.freq = 0;
      period_given = true;
      break;
    case 'g':
      if(!parse_call_graph(optarg, &a->rec))
        return BP_EXIT_USAGE;
      break;
    case 'k':
      a->rec.kernel = true;
      a->rec.kernel_explicit = true;
      break;
    case OPT_ALL_USER:
      a->rec.kernel = false;
      a->rec.kernel_explicit = false;
      break;
    case OPT_OFF_CPU:
      a->rec.off_cpu = true;
      break;
    case 'm':
      if(!bpi_text_u64(optarg, 1, 1u << 20, &v) || (v & (v - 1))) {
        bp_msg_error("-m: '%s' is not a power of two", optarg);
        return BP_EXIT_USAGE;
      }
      a->rec.ring_pages = (uint32_t)v;
      break;
    case 'o':
      a->output = optarg;
      a->output_given = true;
      break;
    case 'D':
      a->rec.demangle = false;
      break;
    case OPT_NO_INLINE:
      a->rec.no_inline = true;
      break;
    case OPT_DEBUGINFOD:
      if(!parse_debuginfod(optarg, a))
        return BP_EXIT_USAGE;
      break;
    case OPT_NO_DEBUGINFOD:
      a->rec.debuginfod = NULL;
      break;
    case 'C':
      a->rec.counters = optarg;
      break;
    case 'N':
      a->rec.counters = NULL;
      break;
    case 'q':
      a->quiet = true;
      break;
    case 'h':
      usage(stdout, a->run);
      return BP_EXIT_OK;
    default:
      if(opt >= BP_CLI_RUN_FIRST && opt < BP_CLI_RUN_LAST) {
        int st = bp_cli_run_option(opt, optarg, a);
        if(st)
          return st;
        break;
      }
      if(a->run && (opt == 'v' || (opt >= BP_CLI_PUB_FIRST &&
                                   opt < BP_CLI_PUB_LAST))) {
        int st = bp_cli_publish_option(opt, optarg, &a->pub);
        if(st)
          return st;
        break;
      }
      if(opt == 'v' || (opt >= BP_CLI_PUB_FIRST && opt < BP_CLI_PUB_LAST)) {
        bp_msg_error("the publishing options belong to benchprof run, "
                     "not record");
        return bp_cli_usage_hint("record");
      }
      return bp_cli_bad_option(a->run ? "run" : "record", argv, SHORTOPTS,
                               longopts);
    }
  }
  /* one wins over the configuration's; both on one command line is a
   * mistake (the configuration refuses both too) */
  if(freq_given && period_given) {
    bp_msg_error("-F and -c are both given; give a frequency or a period");
    return BP_EXIT_USAGE;
  }
  int st = bp_cli_run_options_check(a);
  if(st)
    return st;
  if(optind >= argc) {
    bp_msg_error("no command to record (usage: benchprof %s [options] "
                 "-- CMD [ARGS...])", a->run ? "run" : "record");
    return BP_EXIT_USAGE;
  }
  a->rec.argv = argv + optind;
  return -1;
}

void bp_cli_record_defaults(struct bp_record_args *a, bool run)
{
  memset(a, 0, sizeof(*a));
  a->rec.control = true;  /* cheap: one FIFO, read only when written */
  a->rec.tmpdir = getenv("TMPDIR");
  a->rec.runtime_dir = getenv("XDG_RUNTIME_DIR");
  a->rec.event = DEFAULT_EVENT;
  a->rec.freq = DEFAULT_FREQ;
  a->rec.demangle = true;
  a->rec.kernel = true;
  a->rec.counters = BP_COUNTERS_DEFAULT;
  a->output = DEFAULT_OUTPUT;
  a->run = run;
  bp_cli_publish_defaults(&a->pub);
  a->pub.enabled = run;
  a->pub.for_run = run;
}

/* The configuration, then the options (flags win over the file).  Returns
 * -1 to go on, else the exit status; *cs says how the file went.  A file
 * that is unusable while --strict (or strict in the environment) makes a
 * usage error.  fallback says what happens otherwise. */
int bp_cli_record_setup(int argc, char **argv, struct bp_record_args *a,
                        struct bp_config *cfg, const char *fallback,
                        enum bp_cli_config *cs)
{
  const char *config;
  bool strict;
  bp_cli_record_prescan(argc, argv, &config, &strict);
  a->config_file = config;
  *cs = bp_cli_config_load(cfg, config, strict, fallback);
  if(*cs == BP_CLI_CONFIG_OK)
    bp_cli_record_config(a, cfg);
  int status = bp_cli_record_args(argc, argv, a);
  if(status < 0 && *cs == BP_CLI_CONFIG_FAIL)
    status = BP_EXIT_USAGE;
  return status;
}

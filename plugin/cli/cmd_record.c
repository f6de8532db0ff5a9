/* benchprof record: run a command under the sampler and write its profile
 * artifacts.  The command's stdin, stdout and stderr are its own; benchprof
 * exits with the command's status. */
#include "bp_setup.h"
#include "cli.h"
#include "msgs.h"

#include "buf.h"
#include "config.h"
#include "counters.h"
#include "err.h"
#include "export.h"
#include "fileio.h"
#include "hash.h"
#include "record.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_EVENT "cycles"
#define DEFAULT_FREQ 997
#define DEFAULT_OUTPUT "benchprof-out"
#define TOP_FUNCS 10

static void usage(FILE *out, bool run)
{
  if(run)
    fprintf(out,
      "usage: benchprof run [options] [--] CMD [ARGS...]\n"
      "\n"
      "The runner's wrapper: record CMD and count events over it, then write\n"
      "the benchmark report (report.json, Bencher Metric Format) with one\n"
      "measure per counter next to the profile artifacts and a manifest.json\n"
      "that attaches them.  Exits with CMD's status.\n"
      "\n"
      "      --bmf FILE         the harness writes its BMF results to FILE\n"
      "      --adapter KIND     the harness prints its results on stdout (still\n"
      "                         passed through): json (BMF) or google-benchmark\n"
      "                         (--benchmark_format=json)\n"
      "      --name NAME        the benchmark's name when the harness reports\n"
      "                         nothing (default: CMD's file name)\n"
      "      --each KIND        list the harness's benchmarks and run each as its\n"
      "                         own invocation, artifacts in DIR/<benchmark>/:\n"
      "                         google-benchmark\n"
      "      --no-bencher       no Bencher report (a Bencher runner job sends\n"
      "                         report.json itself); artifacts still go to\n"
      "                         the store\n"
      "      --allow-failure    publish (and compare) a run whose command\n"
      "                         failed or was interrupted; without it such a\n"
      "                         run stays local, marked in manifest.json\n"
      "      --keep-status      benchprof's own failures (results that cannot\n"
      "                         be read, a report that cannot be written) are\n"
      "                         warnings: exit with CMD's status, unless\n"
      "                         strict (benchprof-wrap passes it)\n"
      "\n"
      "The configuration (--config) may turn profiling off (\"enabled\":\n"
      "false, BENCHPROF_ENABLED=0): CMD is then executed as it is, nothing\n"
      "measured or written.  An invalid configuration is a warning and CMD\n"
      "runs unprofiled, unless --strict or \"strict\": true (exit 2).\n");
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
    "  -m, --mmap-pages N     data pages per CPU ring, a power of two (default:\n"
    "                         2 MiB with fp; with stack copies 64 MiB in all,\n"
    "                         2 to 32 MiB per CPU; config record.ring_mib)\n"
    "  -o, --output DIR       where artifacts go (default: ./benchprof-out)\n"
    "      --no-demangle      keep C++ and Rust symbol names mangled\n"
    "      --no-inline        no frames of their own for inlined calls (they\n"
    "                         count to the function they were inlined in)\n"
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
    "Artifacts: profile.json.gz (Firefox Profiler), profile.pb.gz (pprof),\n"
    "profile.folded, flamegraph.svg, summary.json.  Benchmarks CMD marks on\n"
    "the FIFO named by $BENCHPROF_CONTROL (benchprof/hooks.h) get their own\n"
    "in DIR/<benchmark>/.\n",
    run ? "" : "      --strict           an invalid configuration fails (exit 2)\n");
}

/* A whole decimal number in [min, max], or false. */
static bool parse_u64(const char *s, uint64_t min, uint64_t max,
                      uint64_t *out)
{
  if(!s || !*s || *s == '-' || *s == '+')
    return false;
  errno = 0;
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if(errno || *end || v < min || v > max)
    return false;
  *out = v;
  return true;
}

static bool parse_adapter(const char *s, enum bp_adapter *out)
{
  if(!strcmp(s, "json"))
    *out = BP_ADAPTER_JSON;
  else if(!strcmp(s, "google-benchmark"))
    *out = BP_ADAPTER_GBENCH;
  else
    return false;
  return true;
}

/* fp | dwarf[,BYTES] | auto | lbr; false (after saying why) when not */
static bool parse_call_graph(const char *s, struct bp_record_opts *o)
{
  uint64_t v;
  if(!strcmp(s, "fp") || !strcmp(s, "auto") || !strcmp(s, "lbr")) {
    o->call_graph = s[0] == 'f' ? BP_CALL_GRAPH_FP :
                    s[0] == 'l' ? BP_CALL_GRAPH_LBR : BP_CALL_GRAPH_AUTO;
    return true;
  }
  if(strncmp(s, "dwarf", 5) || (s[5] && s[5] != ',')) {
    bp_msg_error("--call-graph: '%s' is not fp, dwarf[,BYTES], auto or lbr",
                 s);
    return false;
  }
  o->call_graph = BP_CALL_GRAPH_DWARF;
  if(!s[5])
    return true;
  if(!parse_u64(s + 6, 8, BP_RECORD_MAX_STACK_BYTES, &v) || (v & 7)) {
    bp_msg_error("--call-graph: stack size '%s' must be a multiple of 8 "
                 "from 8 to %d bytes", s + 6, BP_RECORD_MAX_STACK_BYTES);
    return false;
  }
  o->stack_bytes = (uint32_t)v;
  return true;
}

/* Options without a short form beyond the publishing ones. */
enum { OPT_CONFIG = BP_CLI_PUB_LAST, OPT_NO_BENCHER, OPT_NO_INLINE,
       OPT_ALL_USER, OPT_ALLOW_FAILURE, OPT_KEEP_STATUS };

/* '+': stop at the first non-option, so CMD's own options stay its own */
#define SHORTOPTS "+e:F:c:g:km:o:qhvC:"

static const struct option longopts[] = {
    {"event", required_argument, NULL, 'e'},
    {"freq", required_argument, NULL, 'F'},
    {"period", required_argument, NULL, 'c'},
    {"call-graph", required_argument, NULL, 'g'},
    {"kernel", no_argument, NULL, 'k'},
    {"all-user", no_argument, NULL, OPT_ALL_USER},
    {"mmap-pages", required_argument, NULL, 'm'},
    {"output", required_argument, NULL, 'o'},
    {"no-demangle", no_argument, NULL, 'D'},
    {"no-inline", no_argument, NULL, OPT_NO_INLINE},
    {"counters", required_argument, NULL, 'C'},
    {"no-counters", no_argument, NULL, 'N'},
    {"bmf", required_argument, NULL, 'B'},
    {"adapter", required_argument, NULL, 'A'},
    {"name", required_argument, NULL, 'n'},
    {"each", required_argument, NULL, 'E'},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {"config", required_argument, NULL, OPT_CONFIG},
    {"no-bencher", no_argument, NULL, OPT_NO_BENCHER},
    {"allow-failure", no_argument, NULL, OPT_ALLOW_FAILURE},
    {"keep-status", no_argument, NULL, OPT_KEEP_STATUS},
    BP_CLI_PUBLISH_LONGOPTS,
    {NULL, 0, NULL, 0},
};

void bp_cli_record_prescan(int argc, char **argv, const char **config,
                           bool *strict)
{
  int opt;
  *config = NULL;
  *strict = false;
  optind = 1;
  opterr = 0;  /* the real pass reports mistakes */
  while((opt = getopt_long(argc, argv, SHORTOPTS, longopts, NULL)) != -1) {
    if(opt == OPT_CONFIG)
      *config = optarg;
    else if(opt == BP_CLI_PUB_STRICT)
      *strict = true;
  }
  opterr = 1;
  optind = 1;
}

void bp_cli_record_config(struct bp_record_args *a, const struct bp_config *c)
{
  bpi_config_record_opts(c, &a->rec);
  if(c->output)
    a->output = c->output;
  if(a->run)
    bp_cli_publish_config(&a->pub, c);
  a->pub.strict = c->strict;
}

int bp_cli_record_args(int argc, char **argv, struct bp_record_args *a)
{
  uint64_t v;
  int opt;
  optind = 1;
  while((opt = getopt_long(argc, argv, SHORTOPTS, longopts, NULL)) != -1) {
    switch(opt) {
    case OPT_CONFIG:
      break;  /* read before the options (bp_cli_record_prescan) */
    case OPT_NO_BENCHER:
    case OPT_ALLOW_FAILURE:
    case OPT_KEEP_STATUS:
      if(!a->run) {
        bp_msg_error("--%s belongs to benchprof run, not record",
                     opt == OPT_NO_BENCHER ? "no-bencher" :
                     opt == OPT_ALLOW_FAILURE ? "allow-failure" :
                     "keep-status");
        return BP_EXIT_USAGE;
      }
      if(opt == OPT_NO_BENCHER)
        a->pub.no_bencher = true;
      else if(opt == OPT_ALLOW_FAILURE)
        a->allow_failure = true;
      else
        a->keep_status = true;
      break;
    case BP_CLI_PUB_STRICT:
      a->pub.strict = true;  /* record: an invalid configuration fails */
      break;
    case 'e':
      a->rec.event = optarg;
      break;
    case 'F':
      if(!parse_u64(optarg, 1, 1000000, &v)) {
        bp_msg_error("-F: '%s' is not a frequency in Hz (1 to 1000000)",
                     optarg);
        return BP_EXIT_USAGE;
      }
      a->rec.freq = v;
      a->rec.period = 0;
      break;
    case 'c':
      if(!parse_u64(optarg, 1, UINT64_MAX / 2, &v)) {
        bp_msg_error("-c: '%s' is not a positive period", optarg);
        return BP_EXIT_USAGE;
      }
      a->rec.period = v;
      a->rec.freq = 0;
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
    case 'm':
      if(!parse_u64(optarg, 1, 1u << 20, &v) || (v & (v - 1))) {
        bp_msg_error("-m: '%s' is not a power of two", optarg);
        return BP_EXIT_USAGE;
      }
      a->rec.ring_pages = (uint32_t)v;
      break;
    case 'o':
      a->output = optarg;
      break;
    case 'D':
      a->rec.demangle = false;
      break;
    case OPT_NO_INLINE:
      a->rec.no_inline = true;
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
    case 'B':
    case 'A':
    case 'n':
    case 'E':
      if(!a->run) {
        bp_msg_error("--%s belongs to benchprof run, not record",
                     opt == 'B' ? "bmf" : opt == 'A' ? "adapter" :
                     opt == 'E' ? "each" : "name");
        return BP_EXIT_USAGE;
      }
      if(opt == 'E') {
        if(strcmp(optarg, "google-benchmark")) {
          bp_msg_error("--each: '%s' is not google-benchmark", optarg);
          return BP_EXIT_USAGE;
        }
        a->each = BP_ADAPTER_GBENCH;
      }
      else if(opt == 'B')
        a->bmf_file = optarg;
      else if(opt == 'n')
        a->name = optarg;
      else if(!parse_adapter(optarg, &a->adapter)) {
        bp_msg_error("--adapter: '%s' is not json or google-benchmark",
                     optarg);
        return BP_EXIT_USAGE;
      }
      break;
    case 'h':
      usage(stdout, a->run);
      return BP_EXIT_OK;
    default:
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
        return BP_EXIT_USAGE;
      }
      usage(stderr, a->run);
      return BP_EXIT_USAGE;
    }
  }
  if(a->bmf_file && a->adapter != BP_ADAPTER_NONE) {
    bp_msg_error("--bmf and --adapter both name the harness's results; "
                 "give one");
    return BP_EXIT_USAGE;
  }
  if(a->each && (a->bmf_file || a->adapter != BP_ADAPTER_NONE)) {
    bp_msg_error("--each reads each invocation's results itself; drop "
                 "--bmf and --adapter");
    return BP_EXIT_USAGE;
  }
  if(optind >= argc) {
    bp_msg_error("no command to record (usage: benchprof %s [options] "
                 "-- CMD [ARGS...])", a->run ? "run" : "record");
    return BP_EXIT_USAGE;
  }
  a->rec.argv = argv + optind;
  return -1;
}

/* Fail before the benchmark runs, not after, when artifacts cannot be
 * written: create the directory and a file in it. */
static bool output_writable(const char *dir)
{
  struct bp_err err = {0};
  if(bpi_file_mkdirs(dir, &err)) {
    bp_msg_err(&err, err.code);
    return false;
  }
  char probe[PATH_MAX];
  snprintf(probe, sizeof(probe), "%s/.benchprof-probe.XXXXXX", dir);
  int fd = mkstemp(probe);
  if(fd < 0) {
    bp_msg_error("cannot write to output directory '%s': %s", dir,
                 strerror(errno));
    return false;
  }
  close(fd);
  unlink(probe);
  return true;
}

static void note_event(const struct bp_record_info *info)
{
  if(info->fallback_reason)
    bp_msg_warn("%s; sampling the software clock (%s) instead",
                info->fallback_reason, info->event);
  const struct bp_sampler_info *si = &info->sampler;
  if(!info->fallback_reason && info->precise_max)
    bp_msg_note("'%s': the highest precision the PMU accepts is "
                "precise_ip=%u", info->requested_event, si->precise_used);
  else if(!info->fallback_reason && si->precise_used < si->precise_requested)
    bp_msg_warn("'%s': the PMU refused precise_ip=%u (%s); keeping the "
                "event with precise_ip=%u (more skid)", info->requested_event,
                si->precise_requested,
                strerrorname_np(si->precise_errno) ?
                strerrorname_np(si->precise_errno) : "error",
                si->precise_used);
  else if(!info->fallback_reason && si->precise_requested)
    bp_msg_note("'%s': sampling with precise_ip=%u", info->requested_event,
                si->precise_used);
  if(info->sampler.freq_clamped)
    bp_msg_warn("frequency lowered to %" PRIu64
                " Hz (kernel.perf_event_max_sample_rate)",
                info->sampler.freq);
  if(info->sampler.kernel_dropped)
    bp_msg_warn("kernel frames are not permitted here "
                "(perf_event_paranoid); recording user space only");
  if(info->call_graph_fallback && !strcmp(info->call_graph, "auto"))
    bp_msg_warn("%s; recording with --call-graph auto instead",
                info->call_graph_fallback);
  else if(info->call_graph_fallback)
    bp_msg_warn("%s; recording frame-pointer stacks only",
                info->call_graph_fallback);
}

/* The rings were read while the command ran after all (not the plan:
 * that takes CPU from it): say why. */
static void note_spill(const struct bp_record_info *info)
{
  if(info->spill_errno)
    bp_msg_warn("cannot keep the samples in %s during the run (%s); read "
                "them while the command ran instead (TMPDIR chooses the "
                "directory)", info->spill_dir, strerror(info->spill_errno));
}

/* What DWARF unwinding did, after the run. */
static void note_unwind(const struct bp_profile_meta *m)
{
  if(!m->unwind_samples)
    return;
  bp_msg_note("call graph %s: %" PRIu64 " stacks unwound in %.0f ms, "
              "%" PRIu64 " from DWARF, %" PRIu64 " truncated, %" PRIu64
              " stopped early", m->call_graph, m->unwind_samples,
              m->unwind_ms, m->dwarf_samples, m->unwind_truncated,
              m->unwind_failed);
  if(m->unwind_truncated * 100 > m->unwind_samples)
    bp_msg_warn("%" PRIu64 " stacks were deeper than the %" PRIu32
                "-byte stack copy and end early; try --call-graph "
                "dwarf,BYTES with more bytes", m->unwind_truncated,
                m->stack_bytes);
}

/* One line of counted totals, one of what could not be counted. */
static void note_counters(const struct bp_counter *c, size_t n)
{
  struct bp_buf got, missing;
  bpi_buf_init(&got);
  bpi_buf_init(&missing);
  for(size_t i = 0; i < n; i++) {
    if(!c[i].available) {
      bpi_buf_printf(&missing, "%s%s", missing.len ? ", " : "", c[i].name);
      continue;
    }
    if(!strcmp(c[i].unit, "ns"))
      bpi_buf_printf(&got, "%s%s %.2f ms", got.len ? ", " : "", c[i].name,
                     c[i].value / 1e6);
    else
      bpi_buf_printf(&got, "%s%s %.0f", got.len ? ", " : "", c[i].name,
                     c[i].value);
  }
  if(got.len && !bpi_buf_failed(&got))
    bp_msg_note("counted: %s", got.data);
  if(missing.len && !bpi_buf_failed(&missing))
    bp_msg_note("not counted here: %s (see summary.json)", missing.data);
  bpi_buf_cleanup(&got);
  bpi_buf_cleanup(&missing);
}

static void print_summary(const struct bp_profile *p, const char *dir)
{
  const struct bp_profile_meta *m = &p->meta;
  double secs = (double)(m->end_ns - m->start_ns) / 1e9;
  uint32_t procs = 0;
  for(uint32_t i = 0; i < p->nthreads; i++)
    procs += p->threads[i].pid == p->threads[i].tid;
  if(m->freq)
    bp_msg_note("event %s at %" PRIu64 " Hz%s", m->event, m->freq,
                m->fallback_reason ? " (software clock fallback)" : "");
  else
    bp_msg_note("event %s, period %" PRIu64, m->event, m->period);
  bp_msg_note("%" PRIu64 " samples, %" PRIu64 " lost, %.2f s, "
              "%u process%s, %u thread%s", m->samples, m->lost_records, secs,
              procs, procs == 1 ? "" : "es", p->nthreads,
              p->nthreads == 1 ? "" : "s");
  if(m->lost_records)
    bp_msg_warn("the kernel dropped %" PRIu64 " samples (rings full); "
                "try a larger -m or a lower -F", m->lost_records);
  if(m->throttled)
    bp_msg_warn("the kernel throttled sampling %" PRIu64 " times",
                m->throttled);
  if(m->corrupt_records)
    bp_msg_warn("%" PRIu64 " records in the rings made no sense and were "
                "skipped (corrupt_records in summary.json)",
                m->corrupt_records);
  note_unwind(m);
  char unsampled[320];
  bpi_profile_unsampled_note(p, unsampled, sizeof(unsampled));
  if(*unsampled)
    bp_msg_warn("%s", unsampled);
  struct bp_func_share top[TOP_FUNCS];
  uint64_t total;
  size_t n = bpi_profile_top_funcs(p, top, TOP_FUNCS, &total);
  while(n && top[n - 1].self == 0)
    n--;  /* only functions that were running when sampled */
  if(n)
    bp_msg_note("top functions by self samples:");
  for(size_t i = 0; i < n; i++) {
    const struct bp_func *f = &p->funcs[top[i].func];
    bp_msg_note("  %5.1f%%  %s (in %s)", 100.0 * (double)top[i].self /
                (double)total, bpi_profile_str(p, f->name),
                bpi_profile_str(p, p->libs[f->lib].name));
  }
  note_counters(m->counters, m->ncounters);
  bp_msg_note("artifacts in %s/: profile.json.gz (Firefox Profiler), "
              "profile.pb.gz (pprof), profile.folded, flamegraph.svg, "
              "summary.json", dir);
}

const char *const bp_cli_reserved_names[] = {
  "profile.json.gz", "profile.pb.gz", "profile.folded", "flamegraph.svg",
  "summary.json", "report.json", "manifest.json", "harness-output.txt",
  NULL,
};

void bp_cli_record_cleanup(struct bp_record_args *a)
{
  for(size_t i = 0; i < a->nmarked; i++) {
    free(a->marked[i].dir);
    bpi_counters_copy_free(a->marked[i].counters, a->marked[i].ncounters);
  }
  free(a->marked);
  a->marked = NULL;
  a->nmarked = 0;
}

/* Bad marker lines are the harness's bug, not a reason to fail: say so
 * once. */
static void note_control(const struct bp_control_stats *st)
{
  if(!st)
    return;
  if(st->bad_lines)
    bp_msg_warn("%" PRIu64 " line%s on " BP_CONTROL_ENV " could not be "
                "read and %s ignored (see benchprof(1) for the format)",
                st->bad_lines, st->bad_lines == 1 ? "" : "s",
                st->bad_lines == 1 ? "was" : "were");
  if(st->unmatched_end)
    bp_msg_warn("%" PRIu64 " benchmark end%s without a begin ignored",
                st->unmatched_end, st->unmatched_end == 1 ? "" : "s");
}

/* Group the markers by name: a->marked gets one entry per distinct name
 * (in the order they first began), group[i] the entry of marker i. */
static bp_code group_markers(struct bp_record_args *a,
                             const struct bp_profile *prof, uint32_t *group)
{
  struct bp_strtab names;
  bp_code rc = BP_OK;
  bpi_strtab_init(&names);
  a->marked = calloc(prof->nmarkers, sizeof(*a->marked));
  if(!a->marked)
    rc = BPE_NOMEM;
  for(size_t i = 0; !rc && i < prof->nmarkers; i++) {
    const struct bp_marker *m = &prof->markers[i];
    group[i] = bpi_strtab_intern(&names, m->name);
    if(group[i] == BP_NONE) {
      rc = BPE_NOMEM;
      break;
    }
    struct bp_marked *g = &a->marked[group[i]];
    if(!g->nsegs++) {
      g->name = m->name;
      a->nmarked = group[i] + 1;
    }
  }
  bpi_strtab_cleanup(&names);
  return rc;
}

static bp_code copy_counters(struct bp_marked *g, const struct bp_counter *c,
                             size_t n)
{
  g->counters = calloc(n ? n : 1, sizeof(*g->counters));
  if(!g->counters)
    return BPE_NOMEM;
  for(size_t i = 0; i < n; i++) {
    g->counters[i] = c[i];
    g->counters[i].name = strdup(c[i].name);
    g->counters[i].slug = strdup(c[i].slug);
    g->ncounters = i + 1;
    if(!g->counters[i].name || !g->counters[i].slug)
      return BPE_NOMEM;
  }
  return BP_OK;
}

/* The samples of every time range of benchmark gi, and its counters
 * summed over them, into DIR/<its directory>/. */
static bp_code export_marked(struct bp_record_args *a,
                             const struct bp_profile *prof,
                             const uint32_t *group, uint32_t gi,
                             struct bp_err *err)
{
  struct bp_marked *g = &a->marked[gi];
  struct bp_range *r = calloc(g->nsegs, sizeof(*r));
  struct bp_profile *slice = NULL;
  char dir[PATH_MAX];
  size_t k = 0;
  bp_code rc = r ? BP_OK : BPE_NOMEM;
  for(size_t i = 0; !rc && i < prof->nmarkers; i++) {
    const struct bp_marker *m = &prof->markers[i];
    if(group[i] != gi)
      continue;
    r[k++] = (struct bp_range){m->start_ns, m->end_ns};
    if(!g->counters)
      rc = copy_counters(g, m->counters, m->ncounters);
    else if(m->ncounters == g->ncounters)
      bpi_counters_add(g->counters, m->counters, m->ncounters);
  }
  if(!rc)
    rc = bpi_profile_slice_ranges(prof, r, k, &slice);
  if(!rc)
    rc = bpi_profile_set_counters(slice, g->counters, g->ncounters);
  free(r);
  if(rc) {
    bpi_profile_free(slice);
    return bpi_err_set(err, rc, 0, "profile of benchmark %u", gi + 1);
  }
  g->samples = slice->meta.samples;
  if((size_t)snprintf(dir, sizeof(dir), "%s/%s", a->output, g->dir) >=
     sizeof(dir))
    rc = bpi_err_set(err, BPE_INVAL, 0, "path too long: '%s'", a->output);
  else if(!(rc = bpi_file_mkdirs_under(a->output, g->dir, err)))
    rc = bpi_export_all(slice, dir, err);
  bpi_profile_free(slice);
  return rc;
}

/* Each marked benchmark's samples into DIR/<sanitized name>/: one
 * directory per name, however many times the harness ran it (Google
 * Benchmark calls a benchmark function several times). */
static bp_code export_segments(struct bp_record_args *a,
                               const struct bp_profile *prof,
                               struct bp_err *err)
{
  size_t n = prof->nmarkers;
  if(!n)
    return BP_OK;
  uint32_t *group = calloc(n, sizeof(*group));
  const char **names = calloc(n, sizeof(*names));
  char **dirs = NULL;
  bp_code rc = group && names ? group_markers(a, prof, group) : BPE_NOMEM;
  for(size_t i = 0; !rc && i < a->nmarked; i++)
    names[i] = a->marked[i].name;
  if(!rc)
    rc = bpi_control_dirnames(names, a->nmarked, bp_cli_reserved_names,
                              &dirs);
  free(names);
  if(rc) {
    free(group);
    return bpi_err_set(err, rc, 0, "benchmark directories");
  }
  for(size_t i = 0; i < a->nmarked; i++)
    a->marked[i].dir = dirs[i];  /* the strings move to a->marked */
  free(dirs);
  for(size_t i = 0; !rc && i < a->nmarked; i++)
    rc = export_marked(a, prof, group, (uint32_t)i, err);
  free(group);
  return rc;
}

void bp_cli_record_defaults(struct bp_record_args *a, bool run)
{
  memset(a, 0, sizeof(*a));
  a->rec.control = true;  /* cheap: one FIFO, read only when written */
  a->rec.tmpdir = getenv("TMPDIR");
  a->rec.event = DEFAULT_EVENT;
  a->rec.freq = DEFAULT_FREQ;
  a->rec.demangle = true;
  a->rec.kernel = true;
  a->rec.counters = BP_COUNTERS_DEFAULT;
  a->output = DEFAULT_OUTPUT;
  a->run = run;
  bp_cli_publish_defaults(&a->pub);
  a->pub.enabled = run;
}

int bp_cli_record(struct bp_record_args *a, struct bp_profile **out)
{
  *out = NULL;
  bp_msg_set_quiet(a->quiet);
  if(!output_writable(a->output))
    return BP_EXIT_ERROR;

  struct bp_err err = {0};
  struct bp_recorder *rec = NULL;
  struct bp_profile *prof = NULL;
  bp_code rc = bpi_recorder_new(&rec, &a->rec, &err);
  if(rc) {
    bp_msg_err(&err, rc);
    return rc == BPE_EVENT_UNKNOWN || rc == BPE_INVAL ? BP_EXIT_USAGE
                                                      : BP_EXIT_ERROR;
  }
  /* The command was forked with our environment; from here on only
   * benchprof reads it.  libdw would ask debuginfod servers for every
   * module without local debug info: a runner is no place for that
   * latency, so symbolize from local files only. */
  unsetenv("DEBUGINFOD_URLS");
  note_event(bpi_recorder_info(rec));
  bp_cli_forward_signals(bpi_recorder_pid(rec));
  rc = bpi_recorder_run(rec, &err);
  bp_cli_stop_forwarding();
  note_spill(bpi_recorder_info(rec));
  if(rc == BPE_EXEC) {
    int status = bp_cli_exec_failure(&err, a->rec.argv[0]);
    bpi_recorder_free(rec);
    return status;
  }
  int status = bpi_recorder_exit_status(rec);
  a->failed = rc != BP_OK;
  if(rc) {
    bp_msg_err(&err, rc);  /* the run's records are partial; still write */
    if(status == 0)
      status = BP_EXIT_ERROR;  /* never hide the command's own failure */
  }
  note_control(bpi_recorder_control_stats(rec));
  rc = bpi_recorder_finish(rec, &prof, &err);
  if(!rc)
    rc = bpi_export_all(prof, a->output, &err);
  if(!rc)
    rc = export_segments(a, prof, &err);
  if(rc) {
    bp_msg_err(&err, rc);
    a->failed = true;
    if(status == 0)
      status = BP_EXIT_ERROR;  /* never hide the command's own failure */
  }
  else {
    print_summary(prof, a->output);
    if(a->nmarked)
      bp_msg_note("%zu benchmark%s marked: a profile each in %s/<name>/",
                  a->nmarked, a->nmarked == 1 ? "" : "s", a->output);
  }
  bpi_recorder_free(rec);
  *out = prof;
  return status;
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
  *cs = bp_cli_config_load(cfg, config, strict, fallback);
  if(*cs == BP_CLI_CONFIG_OK)
    bp_cli_record_config(a, cfg);
  int status = bp_cli_record_args(argc, argv, a);
  if(status < 0 && *cs == BP_CLI_CONFIG_FAIL)
    status = BP_EXIT_USAGE;
  return status;
}

int cmd_record(int argc, char **argv)
{
  struct bp_record_args a;
  struct bp_config cfg;
  enum bp_cli_config cs;
  /* record profiles whatever "enabled" says (a person asked for it); an
   * invalid file leaves the defaults, unless strict */
  bp_cli_record_defaults(&a, false);
  int status = bp_cli_record_setup(argc, argv, &a, &cfg,
                                   "recording with the defaults", &cs);
  if(status < 0) {
    struct bp_profile *prof;
    status = bp_cli_record(&a, &prof);
    bpi_profile_free(prof);
  }
  bp_cli_record_cleanup(&a);
  bpi_config_cleanup(&cfg);
  return status;
}

/* benchprof run's own options, beyond record's (record_opts.c) and the
 * publishing ones (publish_opts.c): how the harness reports (--bmf,
 * --adapter, --name, --each), how often it runs (--repeat) and what the
 * run's outcome does (--no-bencher, --fail-on-regression,
 * --allow-failure, --keep-status); their help and their checks. */
#include "bp_setup.h"
#include "cli.h"
#include "msgs.h"

#include "rundir.h"
#include "text.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* run's own help; the publishing and record options follow it. */
void bp_cli_run_usage(FILE *out)
{
  fprintf(out,
    "usage: benchprof run [options] [--] CMD [ARGS...]\n"
    "\n"
    "The runner's wrapper: record CMD and count events over it, then write\n"
    "the benchmark report (" BP_RUNDIR_REPORT ", Bencher Metric Format) with "
    "one\nmeasure per counter next to the profile artifacts and a "
    BP_RUNDIR_MANIFEST "\n"
    "that attaches them.  Exits with CMD's status.\n"
    "\n"
    "      --bmf FILE         the harness writes its BMF results to FILE\n"
    "      --adapter KIND     the harness prints its results on stdout (still\n"
    "                         passed through): json (BMF) or google-benchmark\n"
    "                         (--benchmark_format=json)\n"
    "      --name NAME        the benchmark's name when the harness reports\n"
    "                         nothing (default: CMD's file name, less\n"
    "                         cargo's -<16 hex digits> build hash)\n"
    "      --each KIND        list the harness's benchmarks and run each as its\n"
    "                         own invocation, artifacts in DIR/<benchmark>/:\n"
    "                         google-benchmark\n"
    "      --no-bencher       no Bencher report (a Bencher runner job sends\n"
    "                         " BP_RUNDIR_REPORT " itself); artifacts still "
    "go to\n"
    "                         the store\n"
    "      --repeat N         run CMD N times (record.repeat,\n"
    "                         BENCHPROF_REPEAT; default 1), all profiled\n"
    "                         into one profile; " BP_RUNDIR_REPORT " has "
    "each\n"
    "                         measure's median and min..max, so a pull\n"
    "                         request's comparison can test its changes\n"
    "                         (5 or more on a noisy runner); with --each,\n"
    "                         each benchmark's invocation N times\n"
    "      --fail-on-regression  on a pull request, exit 3 when the\n"
    "                         comparison confirms a regression\n"
    "                         (comment.fail_on_regression)\n"
    "      --allow-failure    publish (and compare) a run whose command\n"
    "                         failed or was interrupted; without it such a\n"
    "                         run stays local, marked in "
    BP_RUNDIR_MANIFEST "\n"
    "                         (one interrupted before its results were\n"
    "                         written never is: it has no report)\n"
    "      --keep-status      benchprof's own failures (results that cannot\n"
    "                         be read, a report that cannot be written) are\n"
    "                         warnings: exit with CMD's status, unless\n"
    "                         strict (benchprof-wrap passes it); one before\n"
    "                         CMD starts (the output directory, the control\n"
    "                         FIFO, the events) runs CMD unprofiled\n"
    "      --check-options    only check the configuration and the options:\n"
    "                         exit 0 when usable, 2 (saying why) when not;\n"
    "                         CMD is not run\n"
    "      --flush            after the run, one more try at what waits in\n"
    "                         the spool ('benchprof flush --retries 0' with\n"
    "                         run's --config, --spool, --ca-file and\n"
    "                         --token-env; its output on stderr; before CMD\n"
    "                         when a failed setup runs it unprofiled; none\n"
    "                         when the spool directory does not exist);\n"
    "                         benchprof-wrap passes it and becomes benchprof\n"
    "                         run, so that the signals it gets reach CMD\n"
    "      --die-with-parent PID  PID is the process that starts benchprof\n"
    "                         (a shell's $$): when it dies, even killed by\n"
    "                         SIGKILL, benchprof gets SIGTERM, and CMD with\n"
    "                         it, as for a TERM sent to benchprof (the run\n"
    "                         interrupted); a PID that is not benchprof's\n"
    "                         parent (any more) is an error, CMD not run\n"
    "\n"
    "The configuration (--config) may turn profiling off (\"enabled\":\n"
    "false, BENCHPROF_ENABLED=0): CMD is then executed as it is, nothing\n"
    "measured or written.  An invalid configuration is a warning and CMD\n"
    "runs unprofiled, unless --strict or \"strict\": true (exit 2).\n");
}

/* The options' names, for "belongs to benchprof run". */
static const char *const names[BP_CLI_RUN_LAST - BP_CLI_RUN_FIRST] = {
  [BP_CLI_RUN_BMF - BP_CLI_RUN_FIRST] = "bmf",
  [BP_CLI_RUN_ADAPTER - BP_CLI_RUN_FIRST] = "adapter",
  [BP_CLI_RUN_NAME - BP_CLI_RUN_FIRST] = "name",
  [BP_CLI_RUN_EACH - BP_CLI_RUN_FIRST] = "each",
  [BP_CLI_RUN_REPEAT - BP_CLI_RUN_FIRST] = "repeat",
  [BP_CLI_RUN_NO_BENCHER - BP_CLI_RUN_FIRST] = "no-bencher",
  [BP_CLI_RUN_FAIL_ON_REGRESSION - BP_CLI_RUN_FIRST] = "fail-on-regression",
  [BP_CLI_RUN_ALLOW_FAILURE - BP_CLI_RUN_FIRST] = "allow-failure",
  [BP_CLI_RUN_KEEP_STATUS - BP_CLI_RUN_FIRST] = "keep-status",
  [BP_CLI_RUN_CHECK_OPTIONS - BP_CLI_RUN_FIRST] = "check-options",
  [BP_CLI_RUN_FLUSH - BP_CLI_RUN_FIRST] = "flush",
  [BP_CLI_RUN_DIE_WITH_PARENT - BP_CLI_RUN_FIRST] = "die-with-parent",
};

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

int bp_cli_run_option(int opt, const char *arg, struct bp_record_args *a)
{
  uint64_t v;
  if(!a->run) {
    bp_msg_error("--%s belongs to benchprof run, not record",
                 names[opt - BP_CLI_RUN_FIRST]);
    return BP_EXIT_USAGE;
  }
  switch(opt) {
  case BP_CLI_RUN_BMF: a->bmf_file = arg; break;
  case BP_CLI_RUN_NAME:
    if(!*arg) {
      bp_msg_error("--name: empty; give the benchmark's name");
      return BP_EXIT_USAGE;
    }
    a->name = arg;
    break;
  case BP_CLI_RUN_NO_BENCHER: a->pub.no_bencher = true; break;
  case BP_CLI_RUN_FAIL_ON_REGRESSION: a->pub.fail_on_regression = true; break;
  case BP_CLI_RUN_ALLOW_FAILURE: a->allow_failure = true; break;
  case BP_CLI_RUN_KEEP_STATUS: a->keep_status = true; break;
  case BP_CLI_RUN_CHECK_OPTIONS: a->check_options = true; break;
  case BP_CLI_RUN_FLUSH: a->flush_after = true; break;
  case BP_CLI_RUN_ADAPTER:
    if(!parse_adapter(arg, &a->adapter)) {
      bp_msg_error("--adapter: '%s' is not json or google-benchmark", arg);
      return BP_EXIT_USAGE;
    }
    break;
  case BP_CLI_RUN_EACH:
    if(strcmp(arg, "google-benchmark")) {
      bp_msg_error("--each: '%s' is not google-benchmark", arg);
      return BP_EXIT_USAGE;
    }
    a->each = BP_ADAPTER_GBENCH;
    break;
  case BP_CLI_RUN_DIE_WITH_PARENT:
    /* pid 1 is init, or the container's: its death ends everything */
    if(!bpi_text_u64(arg, 2, INT32_MAX, &v)) {
      bp_msg_error("--die-with-parent: '%s' is not a process id (the "
                   "caller's own: $$ in a shell)", arg);
      return BP_EXIT_USAGE;
    }
    a->die_with_parent = (pid_t)v;
    break;
  case BP_CLI_RUN_REPEAT:
    if(!bpi_text_u64(arg, 1, 1000, &v)) {
      bp_msg_error("--repeat: '%s' is not a number of runs (1 to 1000)",
                   arg);
      return BP_EXIT_USAGE;
    }
    a->repeat = (unsigned)v;
    break;
  default:
    return BP_EXIT_USAGE;
  }
  return 0;
}

int bp_cli_run_options_check(const struct bp_record_args *a)
{
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
  return 0;
}

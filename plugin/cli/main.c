/* benchprof: the command.  A table of subcommands; each lives in its own
 * cmd_<name>.c and returns the process exit status. */
#include "bp_setup.h"
#include "cli.h"
#include "msgs.h"
#include "parallel.h"
#include "text.h"

#include <getopt.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct command {
  const char *name;
  int (*fn)(int argc, char **argv);
  const char *summary;
};

static const struct command commands[] = {
  {"record", cmd_record, "run a command and write its profile artifacts"},
  {"run", cmd_run, "record, count and write the benchmark report (BMF)"},
  {"stat", cmd_stat, "count events over a command, like perf stat"},
  {"events", cmd_events, "list the events this machine can sample"},
  {"flush", cmd_flush, "send the publications waiting in the spool"},
  {"compare", cmd_compare, "compare two runs: deltas, functions, diff flame graph"},
  {"comment", cmd_comment, "post or update the pull request comment"},
  {"serve", cmd_serve, "serve the local store to a browser (read-only)"},
  {"index", cmd_index, "write the store's static pages again"},
  {"config", cmd_config, "check or show the configuration"},
  {"ci", cmd_ci, "print the run identity detected from CI and git"},
};

static void usage(FILE *out)
{
  fprintf(out, "usage: benchprof <command> [options] [--] [CMD [ARGS...]]\n"
               "\ncommands:\n");
  for(size_t i = 0; i < BP_ARRAY_LEN(commands); i++)
    fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
  fprintf(out, "\n'benchprof <command> --help' describes a command; "
               "'man benchprof' has the rest.\n");
}

/* Memory that is freed stays with the process for its next allocation
 * instead of going back to the kernel: a run of a large suite builds,
 * prints, frees and parses manifests of tens of megabytes several times,
 * and every page handed back is a page fault when it is taken again (tens
 * of microseconds each on a virtual machine).  A command is short-lived;
 * its peak is what it holds until it ends. */
static void keep_freed_memory(void)
{
#if defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  /* glibc's largest */
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

/* BENCHPROF_THREADS: how many threads share out a suite's work
 * (parallel.h); a value that is no count is said, and the default
 * applies. */
static void set_threads(void)
{
  const char *v = getenv("BENCHPROF_THREADS");
  uint64_t n;
  if(!v || !*v)
    return;
  if(bpi_text_u64(v, 1, 64, &n))
    bpi_parallel_set_workers((unsigned)n);
  else
    bp_msg_warn("BENCHPROF_THREADS='%.40s' is not a number from 1 to 64: "
                "using the default (the online CPUs, at most 8)", v);
}

int main(int argc, char **argv)
{
  keep_freed_memory();
  set_threads();
  if(argc < 2) {
    usage(stderr);
    return BP_EXIT_USAGE;
  }
  const char *name = argv[1];
  if(!strcmp(name, "-h") || !strcmp(name, "--help") || !strcmp(name, "help")) {
    usage(stdout);
    return BP_EXIT_OK;
  }
  if(!strcmp(name, "-V") || !strcmp(name, "--version")) {
    printf("benchprof %s\n", BENCHPROF_VERSION);
    return BP_EXIT_OK;
  }
  /* a mistyped option is said by the command (bp_cli_bad_option), in
   * benchprof's words, with where its help is */
  opterr = 0;
  for(size_t i = 0; i < BP_ARRAY_LEN(commands); i++)
    if(!strcmp(name, commands[i].name))
      return commands[i].fn(argc - 1, argv + 1);
  bp_msg_error("unknown command '%s' (see 'benchprof --help')", name);
  return BP_EXIT_USAGE;
}

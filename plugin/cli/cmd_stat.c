/* benchprof stat: count events over a whole command, like perf stat.
 * The table (or --json, written with cJSON) goes to stderr, so the
 * command's stdout stays its own; benchprof exits with the command's
 * status.  They are results, not messages: they do not go through
 * msgs.c (see msgs.h). */
#include "bp_setup.h"
#include "cli.h"
#include "msgs.h"

#include "counters.h"
#include "err.h"
#include "sampler.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cjson/cJSON.h>

struct stat_args {
  const char *counters;
  bool json;
  bool user_only;
  char *const *argv;
};

static void usage(FILE *out)
{
  fprintf(out,
    "usage: benchprof stat [options] [--] CMD [ARGS...]\n"
    "\n"
    "Run CMD and count events over it and every thread and child it starts.\n"
    "Prints a table on stderr; exits with CMD's status.\n"
    "\n"
    "  -C, --counters LIST  comma-separated libpfm4 events (default:\n"
    "                       %s)\n"
    "  -u, --user           count user space only\n"
    "  -j, --json           print JSON instead of the table\n"
    "  -h, --help           this help\n", BP_COUNTERS_DEFAULT);
}

static int parse_args(int argc, char **argv, struct stat_args *a)
{
  static const struct option longopts[] = {
    {"counters", required_argument, NULL, 'C'},
    {"user", no_argument, NULL, 'u'},
    {"json", no_argument, NULL, 'j'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
  };
  int opt;
  optind = 1;
  while((opt = getopt_long(argc, argv, "+C:ujh", longopts, NULL)) != -1) {
    switch(opt) {
    case 'C':
      a->counters = optarg;
      break;
    case 'u':
      a->user_only = true;
      break;
    case 'j':
      a->json = true;
      break;
    case 'h':
      usage(stdout);
      return BP_EXIT_OK;
    default:
      return bp_cli_bad_option("stat", argv, "+C:ujh", longopts);
    }
  }
  if(optind >= argc) {
    bp_msg_error("no command to count (usage: benchprof stat [options] "
                 "-- CMD [ARGS...])");
    return BP_EXIT_USAGE;
  }
  a->argv = argv + optind;
  return -1;
}

/* 1234567 -> "1,234,567" */
static void thousands(char *out, size_t len, uint64_t v)
{
  char digits[32];
  int n = snprintf(digits, sizeof(digits), "%" PRIu64, v);
  size_t j = 0;
  for(int i = 0; i < n && j + 2 < len; i++) {
    if(i && (n - i) % 3 == 0)
      out[j++] = ',';
    out[j++] = digits[i];
  }
  out[j] = '\0';
}

static const struct bp_counter *find(const struct bp_counter *c, size_t n,
                                     const char *slug)
{
  for(size_t i = 0; i < n; i++)
    if(c[i].available && !strcmp(c[i].slug, slug))
      return &c[i];
  return NULL;
}

/* The perf-stat style remark after a counter: IPC, miss rates, CPUs. */
static void derived(char *out, size_t len, const struct bp_counter *c,
                    const struct bp_counter *all, size_t n, double secs)
{
  const struct bp_counter *other;
  out[0] = '\0';
  if(!strcmp(c->slug, "instructions") && (other = find(all, n, "cycles")) &&
     other->value > 0)
    snprintf(out, len, "#  %6.2f  insn per cycle", c->value / other->value);
  else if(!strcmp(c->slug, "branch-misses") &&
          (other = find(all, n, "branches")) && other->value > 0)
    snprintf(out, len, "#  %6.2f%% of all branches",
             100.0 * c->value / other->value);
  else if(!strcmp(c->slug, "cache-misses") &&
          (other = find(all, n, "cache-references")) && other->value > 0)
    snprintf(out, len, "#  %6.2f%% of all cache refs",
             100.0 * c->value / other->value);
  else if(!strcmp(c->unit, "ns") && secs > 0)
    snprintf(out, len, "#  %6.3f CPUs utilized", c->value / 1e9 / secs);
}

void bp_cli_print_counters(const struct bp_counter *c, size_t n,
                           const char *command, double secs)
{
  char num[48], note[96];
  fprintf(stderr, "\n Performance counter stats for '%s':\n\n", command);
  for(size_t i = 0; i < n; i++) {
    if(!c[i].available) {
      fprintf(stderr, "  %20s      %-24s (%s)\n", "<not counted>", c[i].name,
              c[i].reason);
      continue;
    }
    derived(note, sizeof(note), &c[i], c, n, secs);
    if(!strcmp(c[i].unit, "ns"))
      snprintf(num, sizeof(num), "%.2f msec", c[i].value / 1e6);
    else
      thousands(num, sizeof(num), (uint64_t)(c[i].value + 0.5));
    fprintf(stderr, "  %20s      %-24s %s", num, c[i].name, note);
    if(c[i].running < 0.9999)
      fprintf(stderr, "  (scaled, counted %.1f%% of the time)",
              100.0 * c[i].running);
    fputc('\n', stderr);
  }
  fprintf(stderr, "\n  %20.6f seconds time elapsed\n\n", secs);
}

static bp_code ignore_record(void *ctx, const void *rec, size_t len)
{
  (void)ctx;
  (void)rec;
  (void)len;
  return BP_OK;
}

static int shell_status(int st)
{
  if(WIFEXITED(st))
    return WEXITSTATUS(st);
  return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
}

/* --json: {"command", "elapsed_ns", "exit_status", "counters": [...]} */
static void report_json(const struct stat_args *a, const struct bp_counter *c,
                        size_t n, uint64_t elapsed_ns, int status)
{
  cJSON *root = cJSON_CreateObject();
  cJSON *counters = bpi_counters_tree(c, n);
  char *text = NULL;
  if(root && counters &&
     cJSON_AddStringToObject(root, "command", a->argv[0]) &&
     cJSON_AddNumberToObject(root, "elapsed_ns", (double)elapsed_ns) &&
     cJSON_AddNumberToObject(root, "exit_status", status) &&
     cJSON_AddItemToObject(root, "counters", counters)) {
    counters = NULL;  /* root's now */
    text = cJSON_Print(root);
  }
  if(text)
    fprintf(stderr, "%s\n", text);
  else
    bp_msg_error("--json: %s", bp_strerror(BPE_NOMEM));
  free(text);
  cJSON_Delete(counters);
  cJSON_Delete(root);
}

static void report(const struct stat_args *a, const struct bp_counters *cs,
                   uint64_t elapsed_ns, int status)
{
  size_t n;
  const struct bp_counter *c = bpi_counters_list(cs, &n);
  if(a->json)
    report_json(a, c, n, elapsed_ns, status);
  else
    bp_cli_print_counters(c, n, a->argv[0], (double)elapsed_ns / 1e9);
}

int cmd_stat(int argc, char **argv)
{
  struct stat_args a = {.counters = BP_COUNTERS_DEFAULT};
  int status = parse_args(argc, argv, &a);
  if(status >= 0)
    return status;
  struct bp_err err = {0};
  struct bp_sampler *s = NULL;
  struct bp_counters *cs = NULL;
  sigset_t before;
  bp_cli_hold_signals(&before);
  struct bp_sampler_opts so = {.argv = a.argv, .sigmask = &before};
  bp_code rc = bpi_sampler_new(&s, &so, &err);
  if(!rc)
    rc = bpi_counters_open(&cs, a.counters, bpi_sampler_pid(s),
                           !a.user_only, &err);
  if(rc) {
    bp_cli_release_signals(&before);
    bp_msg_err(&err, rc);
    bpi_sampler_free(s);
    return rc == BPE_EVENT_UNKNOWN || rc == BPE_INVAL ? BP_EXIT_USAGE
                                                      : BP_EXIT_ERROR;
  }
  bp_cli_forward_signals(bpi_sampler_pid(s));
  bp_cli_release_signals(&before);
  rc = bpi_sampler_start(s, &err);
  if(rc == BPE_EXEC) {
    status = bp_cli_exec_failure(&err, a.argv[0]);
    goto out;
  }
  if(!rc)
    rc = bpi_sampler_run(s, ignore_record, NULL, &err);
  bp_cli_stop_forwarding();
  status = shell_status(bpi_sampler_wait_status(s));
  if(!rc)
    rc = bpi_counters_read(cs, &err);
  if(rc) {
    bp_msg_err(&err, rc);
    if(status == 0)
      status = BP_EXIT_ERROR;
    goto out;
  }
  report(&a, cs, bpi_sampler_end_ns(s) - bpi_sampler_start_ns(s), status);
out:
  bpi_counters_free(cs);
  bpi_sampler_free(s);
  return status;
}

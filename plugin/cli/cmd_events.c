/* benchprof events: list the event names libpfm4 knows for this machine and
 * whether this kernel can open each of them. */
#include "bp_setup.h"
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "events.h"
#include "msgs.h"

#define DESC_MAX 72

static const char usage_line[] =
  "usage: benchprof events [--no-probe] [--json] [PATTERN]";

struct errno_text {
  int num;
  const char *name;
  const char *hint;
};

/* The errnos perf_event_open gives for an event it refuses. */
static const struct errno_text errno_texts[] = {
  { ENOENT, "ENOENT", "no such PMU" },
  { ENODEV, "ENODEV", "no such PMU" },
  { ENXIO, "ENXIO", "no such PMU" },
  { EOPNOTSUPP, "EOPNOTSUPP", "not supported" },
  { EACCES, "EACCES", "permission denied" },
  { EPERM, "EPERM", "not permitted" },
  { EINVAL, "EINVAL", "invalid here" },
  { EBUSY, "EBUSY", "PMU busy" },
  { E2BIG, "E2BIG", "attr too big" },
  { EOVERFLOW, "EOVERFLOW", "overflow" },
  { EMFILE, "EMFILE", "too many open files" },
  { ENOSPC, "ENOSPC", "no counter left" },
  { ENOSYS, "ENOSYS", "no perf_event_open" },
};

static const struct errno_text *errno_lookup(int num)
{
  for(size_t i = 0; i < BP_ARRAY_LEN(errno_texts); i++) {
    if(errno_texts[i].num == num)
      return &errno_texts[i];
  }
  return NULL;
}

/* A row of the table, kept until every name is known: the columns are
 * as wide as their longest entry (some PMU event names are long). */
struct row {
  char *name;
  char *marker;
  char *desc;         /* its first line, cut at DESC_MAX */
};

struct listing {
  bool json;
  bool probe;
  size_t count;
  size_t can_open;
  cJSON *out;         /* --json: the array */
  struct row *rows;   /* the table */
  size_t nrows, cap;
  bool failed;        /* out of memory building either */
};

static void usage(FILE *to)
{
  fprintf(to,
          "%s\n"
          "\n"
          "List the events this machine knows (libpfm4 names) and whether\n"
          "this kernel can open them for user-space counting.\n"
          "\n"
          "  PATTERN      only names containing PATTERN (any case)\n"
          "  --no-probe   do not trial-open each event\n"
          "  --json       write a JSON array instead of a table\n"
          "  -h, --help   show this help\n",
          usage_line);
}

/* "yes", "no (ENOENT: no such PMU)", "-" (not probed) or "?" (the event
 * cannot be encoded alone, e.g. it needs a unit mask). */
static void open_marker(const struct listing *l, int open_errno, char *m,
                        size_t len)
{
  const struct errno_text *t = NULL;
  if(l->probe && open_errno > 0)
    t = errno_lookup(open_errno);
  if(!l->probe)
    snprintf(m, len, "-");
  else if(open_errno < 0)
    snprintf(m, len, "? (needs a unit mask)");
  else if(open_errno == 0)
    snprintf(m, len, "yes");
  else if(t)
    snprintf(m, len, "no (%s: %s)", t->name, t->hint);
  else
    snprintf(m, len, "no (errno %d: %s)", open_errno, strerror(open_errno));
}

/* Keep the event's row for the table; false when out of memory. */
static bool add_row(struct listing *l, const struct bp_event_info *info)
{
  char marker[64];
  size_t dlen = strcspn(info->desc, "\n");
  bool cut = dlen > DESC_MAX;
  if(l->nrows == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 256;
    struct row *grown = realloc(l->rows, cap * sizeof(*grown));
    if(!grown)
      return false;
    l->rows = grown;
    l->cap = cap;
  }
  open_marker(l, info->open_errno, marker, sizeof(marker));
  struct row *r = &l->rows[l->nrows];
  r->name = strdup(info->name);
  r->marker = strdup(marker);
  r->desc = malloc((cut ? DESC_MAX : dlen) + 1);
  if(r->desc)
    snprintf(r->desc, (cut ? DESC_MAX : dlen) + 1, "%.*s%s",
             (int)(cut ? DESC_MAX - 3 : dlen), info->desc, cut ? "..." : "");
  l->nrows++;   /* freed with the others, whole or not */
  return r->name && r->marker && r->desc;
}

/* The table: each column as wide as its widest entry. */
static void print_rows(const struct listing *l)
{
  int name_w = (int)strlen("EVENT"), open_w = (int)strlen("OPENS");
  for(size_t i = 0; i < l->nrows; i++) {
    int n = (int)strlen(l->rows[i].name), m = (int)strlen(l->rows[i].marker);
    name_w = n > name_w ? n : name_w;
    open_w = m > open_w ? m : open_w;
  }
  if(l->nrows)
    printf("%-*s %-*s %s\n", name_w, "EVENT", open_w, "OPENS",
           "DESCRIPTION");
  for(size_t i = 0; i < l->nrows; i++)
    printf("%-*s %-*s %s\n", name_w, l->rows[i].name, open_w,
           l->rows[i].marker, l->rows[i].desc);
}

static void rows_free(struct listing *l)
{
  for(size_t i = 0; i < l->nrows; i++) {
    free(l->rows[i].name);
    free(l->rows[i].marker);
    free(l->rows[i].desc);
  }
  free(l->rows);
}

/* The event's errno name for --json, NULL when it opened or was not
 * probed; written into buf when it has no name. */
static const char *errno_name(const struct listing *l, int open_errno,
                              char *buf, size_t len)
{
  if(!l->probe || open_errno <= 0)
    return NULL;
  const struct errno_text *t = errno_lookup(open_errno);
  if(t)
    return t->name;
  snprintf(buf, len, "errno %d", open_errno);
  return buf;
}

/* One event as an object of the --json array; false when out of memory. */
static bool json_row(struct listing *l, const struct bp_event_info *info)
{
  const char *sep = strstr(info->name, "::");
  char *pmu = strndup(info->name, sep ? (size_t)(sep - info->name) : 0);
  char errno_buf[32];
  const char *err_name = errno_name(l, info->open_errno, errno_buf,
                                    sizeof(errno_buf));
  bool probed = l->probe && info->open_errno >= 0;
  cJSON *o = cJSON_CreateObject();
  bool ok = pmu && o && cJSON_AddItemToArray(l->out, o);
  if(!ok)
    cJSON_Delete(o);
  ok = ok && cJSON_AddStringToObject(o, "name", info->name) &&
       cJSON_AddStringToObject(o, "pmu", pmu) &&
       (probed ? cJSON_AddBoolToObject(o, "can_open", !info->open_errno)
               : cJSON_AddNullToObject(o, "can_open")) &&
       (err_name ? cJSON_AddStringToObject(o, "errno_name", err_name)
                 : cJSON_AddNullToObject(o, "errno_name")) &&
       cJSON_AddStringToObject(o, "description", info->desc);
  free(pmu);
  return ok;
}

static int on_event(const struct bp_event_info *info, void *ctx)
{
  struct listing *l = ctx;
  l->count++;
  if(l->probe && info->open_errno == 0)
    l->can_open++;
  if(l->json ? !json_row(l, info) : !add_row(l, info))
    l->failed = true;
  return 0;
}

/* Write the finished listing; false when stdout failed. */
static bool finish_output(struct listing *l)
{
  if(l->failed || (l->json && !l->out)) {
    bp_msg_error("events: out of memory");
    return false;
  }
  if(l->json) {
    char *text = cJSON_Print(l->out);
    if(!text) {
      bp_msg_error("events: out of memory");
      return false;
    }
    printf("%s\n", text);
    free(text);
  }
  else {
    print_rows(l);
    if(l->probe)
      printf("%zu event%s, %zu can be opened\n", l->count,
             l->count == 1 ? "" : "s", l->can_open);
    else
      printf("%zu event%s (not probed)\n", l->count,
             l->count == 1 ? "" : "s");
  }
  if(fflush(stdout) || ferror(stdout)) {
    bp_msg_error("events: writing the list: %s", strerror(errno));
    return false;
  }
  return true;
}

static int bad_usage(const char *what, const char *arg)
{
  bp_msg_error("events: %s '%s'", what, arg);
  bp_msg_note("%s", usage_line);
  return BP_EXIT_USAGE;
}

int cmd_events(int argc, char **argv)
{
  static const struct option longopts[] = {
    { "no-probe", no_argument, NULL, 'P' },
    { "json", no_argument, NULL, 'j' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
  };
  struct listing l;
  struct bp_err err = {0};
  const char *pattern = NULL;
  int c;
  int status = BP_EXIT_OK;

  memset(&l, 0, sizeof(l));
  l.probe = true;
  optind = 0;   /* full rescan, whatever main parsed before */
  while((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
    switch(c) {
    case 'P':
      l.probe = false;
      break;
    case 'j':
      l.json = true;
      break;
    case 'h':
      usage(stdout);
      return BP_EXIT_OK;
    default:
      return bp_cli_bad_option("events", argv, "h", longopts);
    }
  }
  if(optind < argc)
    pattern = argv[optind++];
  if(optind < argc)
    return bad_usage("one pattern only, got also", argv[optind]);

  if(l.json && !(l.out = cJSON_CreateArray())) {
    bp_msg_error("events: out of memory");
    return BP_EXIT_ERROR;
  }
  bp_code rc = bpi_events_list(pattern, l.probe, on_event, &l, &err);
  if(rc) {
    bp_msg_err(&err, rc);
    status = BP_EXIT_ERROR;
    goto out;
  }
  if(!finish_output(&l)) {
    status = BP_EXIT_ERROR;
    goto out;
  }
  if(!l.count && pattern) {
    char list[256];
    if(bpi_events_did_you_mean(pattern, list, sizeof(list)))
      bp_msg_error("events: no event name contains '%s' (did you mean: "
                   "%s?)", pattern, list);
    else
      bp_msg_error("events: no event name contains '%s'", pattern);
    status = BP_EXIT_ERROR;
  }
out:
  cJSON_Delete(l.out);
  rows_free(&l);
  return status;
}

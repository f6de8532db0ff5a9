#include "bp_setup.h"
#include "counters.h"
#include "buf.h"
#include "err.h"
#include "events.h"
#include "text.h"

#include <cjson/cJSON.h>

#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* More than the core PMU of any current CPU holds at once: the kernel
 * refuses a group that cannot be scheduled as a whole, which starts a new
 * group anyway; this only bounds the read buffer. */
#define MAX_GROUP 16

struct slot {
  struct bp_counter *c;  /* the public half, in counters[] */
  struct bp_event ev;
  int fd;          /* -1 when not opened */
  uint64_t id;     /* PERF_EVENT_IOC_ID */
  int group;       /* index of the leader's slot, -1 when not opened */
};

struct bp_counters {
  struct slot *slots;
  struct bp_counter *counters;  /* what callers see, one per slot */
  size_t n;
};

static long perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu,
                            int group_fd, unsigned long flags)
{
  return syscall(SYS_perf_event_open, a, pid, cpu, group_fd, flags);
}

char *bpi_counter_slug(const char *name)
{
  const char *colons = strstr(name, "::");
  if(colons)
    name = colons + 2;
  size_t len = strlen(name);
  char *slug = malloc(len + 1);
  if(!slug)
    return NULL;
  size_t j = 0;
  for(size_t i = 0; i < len; i++) {
    char ch = name[i];
    if(ch >= 'A' && ch <= 'Z')
      ch = (char)(ch - 'A' + 'a');
    if(!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')))
      ch = '-';
    if(ch == '-' && (j == 0 || slug[j - 1] == '-'))
      continue;
    slug[j++] = ch;
  }
  while(j && slug[j - 1] == '-')
    j--;
  slug[j] = '\0';
  return slug;
}

static const char *unit_of(const struct bp_event *ev, const char *slug)
{
  if(ev->is_time)
    return "ns";
  /* literals only: units outlive the counters (profiles copy them) */
  if(!strcmp(slug, "instructions"))
    return "instructions";
  if(!strcmp(slug, "cycles"))
    return "cycles";
  if(!strcmp(slug, "page-faults"))
    return "faults";
  return "events";
}

/* Software events that only ever count inside the kernel. */
static bool kernel_only(const struct perf_event_attr *a)
{
  return a->type == PERF_TYPE_SOFTWARE &&
         (a->config == PERF_COUNT_SW_CONTEXT_SWITCHES ||
          a->config == PERF_COUNT_SW_CPU_MIGRATIONS);
}

static void unavailable(struct slot *s, const char *fmt, const char *what)
{
  s->c->available = false;
  snprintf(s->c->reason, sizeof(s->c->reason), fmt, what);
}

static bp_code parse_list(struct bp_counters *cs, const char *list,
                          bool kernel, struct bp_err *err)
{
  char *copy = strdup(list ? list : "");
  if(!copy)
    return bpi_err_set(err, BPE_NOMEM, 0, "counter list");
  size_t count = 1;
  for(const char *p = copy; *p; p++)
    count += *p == ',';
  cs->slots = calloc(count, sizeof(*cs->slots));
  cs->counters = calloc(count, sizeof(*cs->counters));
  bp_code rc = cs->slots && cs->counters
                 ? BP_OK : bpi_err_set(err, BPE_NOMEM, 0, "counters");
  char *save = NULL;
  for(char *name = strtok_r(copy, ",", &save); !rc && name;
      name = strtok_r(NULL, ",", &save)) {
    struct slot *s = &cs->slots[cs->n];
    s->c = &cs->counters[cs->n];
    s->fd = -1;
    s->group = -1;
    rc = bpi_event_parse(name, kernel, &s->ev, err);
    if(rc)
      break;
    cs->n++;
    s->c->name = strdup(name);
    s->c->slug = bpi_counter_slug(name);
    if(!s->c->name || !s->c->slug) {
      rc = bpi_err_set(err, BPE_NOMEM, 0, "counters");
      break;
    }
    s->c->unit = unit_of(&s->ev, s->c->slug);
    s->c->available = true;
  }
  if(!rc && cs->n == 0)
    rc = bpi_err_set(err, BPE_INVAL, 0, "no counters in '%s'", list);
  free(copy);
  return rc;
}

static void counting_attr(struct perf_event_attr *a, bool leader)
{
  a->size = sizeof(*a);
  a->sample_period = 0;
  a->sample_type = 0;
  a->freq = 0;
  a->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
                   PERF_FORMAT_TOTAL_TIME_ENABLED |
                   PERF_FORMAT_TOTAL_TIME_RUNNING;
  a->inherit = 1;
  /* members follow their leader, which starts counting at exec */
  a->disabled = leader;
  a->enable_on_exec = leader;
}

/* Open slot i into group (the leader's slot), or as a new leader when
 * group < 0.  Returns 0 or the errno. */
static int open_slot(struct bp_counters *cs, size_t i, int group, pid_t pid)
{
  struct slot *s = &cs->slots[i];
  struct perf_event_attr a = s->ev.attr;
  counting_attr(&a, group < 0);
  int gfd = group < 0 ? -1 : cs->slots[group].fd;
  long fd = perf_event_open(&a, pid, -1, gfd, PERF_FLAG_FD_CLOEXEC);
  if(fd < 0 && (errno == EACCES || errno == EPERM) && !a.exclude_kernel) {
    /* perf_event_paranoid: count user space only, like perf stat does */
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    s->ev.attr.exclude_kernel = 1;
    fd = perf_event_open(&a, pid, -1, gfd, PERF_FLAG_FD_CLOEXEC);
  }
  /* a counter does not care about skid: the precision the PMU takes */
  while(fd < 0 && a.precise_ip > 0 && bpi_event_errno_precise(errno)) {
    a.precise_ip--;
    fd = perf_event_open(&a, pid, -1, gfd, PERF_FLAG_FD_CLOEXEC);
  }
  if(fd < 0)
    return errno;
  s->fd = (int)fd;
  s->group = group < 0 ? (int)i : group;
  if(ioctl(s->fd, PERF_EVENT_IOC_ID, &s->id) < 0)
    s->id = 0;
  return 0;
}

static void explain_failure(struct slot *s, int e)
{
  const char *name = strerrorname_np(e) ? strerrorname_np(e) : "error";
  if(bpi_event_errno_no_pmu(e) && s->ev.attr.type != PERF_TYPE_SOFTWARE)
    unavailable(s, "not supported: no hardware PMU for it here (%s)", name);
  else if(e == EACCES || e == EPERM)
    unavailable(s, "not permitted (%s; see perf_event_paranoid)", name);
  else {
    const char *advice = bpi_event_errno_advice(e);
    s->c->available = false;
    snprintf(s->c->reason, sizeof(s->c->reason),
             "cannot be counted here (%s%s%s)", name, advice ? ": " : "",
             advice ? advice : "");
  }
}

bp_code bpi_counters_open(struct bp_counters **out, const char *list,
                          pid_t pid, bool kernel, struct bp_err *err)
{
  struct bp_counters *cs = calloc(1, sizeof(*cs));
  if(!cs)
    return bpi_err_set(err, BPE_NOMEM, 0, "counters");
  bp_code rc = parse_list(cs, list, kernel, err);
  if(rc) {
    bpi_counters_free(cs);
    return rc;
  }
  int group = -1, members = 0;
  for(size_t i = 0; i < cs->n; i++) {
    struct slot *s = &cs->slots[i];
    int e = group >= 0 && members < MAX_GROUP ? open_slot(cs, i, group, pid)
                                              : -1;
    if(e) {  /* no group yet, a full one, or it cannot take this event */
      e = open_slot(cs, i, -1, pid);
      if(!e) {
        group = (int)i;
        members = 0;
      }
    }
    if(e) {
      explain_failure(s, e);
      continue;
    }
    members++;
    if(kernel_only(&s->ev.attr) && s->ev.attr.exclude_kernel)
      unavailable(s, "%s counts only in the kernel, and kernel counting "
                  "is not permitted here", s->c->name);
  }
  *out = cs;
  return BP_OK;
}

bp_code bpi_counters_check(const char *list, struct bp_err *err)
{
  struct bp_counters *cs = calloc(1, sizeof(*cs));
  if(!cs)
    return bpi_err_set(err, BPE_NOMEM, 0, "counters");
  bp_code rc = parse_list(cs, list, false, err);
  bpi_counters_free(cs);
  return rc;
}

void bpi_counters_free(struct bp_counters *cs)
{
  if(!cs)
    return;
  for(size_t i = 0; i < cs->n; i++) {
    struct slot *s = &cs->slots[i];
    if(s->fd >= 0)
      close(s->fd);
    bpi_event_cleanup(&s->ev);
    if(s->c) {
      free(s->c->name);
      free(s->c->slug);
    }
  }
  free(cs->slots);
  free(cs->counters);
  free(cs);
}

bool bpi_counters_scale(uint64_t raw, uint64_t enabled, uint64_t running,
                        double *value, double *ratio)
{
  if(running == 0)
    return false;
  if(running >= enabled) {
    *value = (double)raw;
    *ratio = 1.0;
    return true;
  }
  /* the PMU counted only part of the time: extrapolate, as perf stat does */
  *ratio = (double)running / (double)enabled;
  *value = (double)raw * (double)enabled / (double)running;
  return true;
}

/* Store the values of one group read into its members. */
static void apply_group(struct bp_counters *cs, int leader,
                        const uint64_t *buf)
{
  uint64_t nr = buf[0], enabled = buf[1], running = buf[2];
  for(uint64_t k = 0; k < nr && k < MAX_GROUP * 2; k++) {
    uint64_t value = buf[3 + 2 * k], id = buf[4 + 2 * k];
    for(size_t i = 0; i < cs->n; i++) {
      struct slot *s = &cs->slots[i];
      if(s->group != leader || s->id != id || !s->c->available)
        continue;
      s->c->raw = value;
      if(!bpi_counters_scale(value, enabled, running, &s->c->value,
                             &s->c->running))
        unavailable(s, "%s was never counted (the PMU never scheduled it)",
                    s->c->name);
    }
  }
}

bp_code bpi_counters_read(struct bp_counters *cs, struct bp_err *err)
{
  uint64_t buf[3 + 2 * (MAX_GROUP + 1)];
  for(size_t i = 0; i < cs->n; i++) {
    struct slot *s = &cs->slots[i];
    if(s->fd < 0 || s->group != (int)i)
      continue;  /* only leaders are read, once for the whole group */
    ssize_t n = read(s->fd, buf, sizeof(buf));
    if(n < (ssize_t)(3 * sizeof(uint64_t)))
      return bpi_err_set(err, BPE_SYS, n < 0 ? errno : 0,
                         "reading counter group of '%s'", s->c->name);
    apply_group(cs, (int)i, buf);
  }
  return BP_OK;
}

/* Store one group's values into the snapshots of its members. */
static void snap_group(const struct bp_counters *cs, int leader,
                       const uint64_t *buf, struct bp_counter_snap *snap)
{
  uint64_t nr = buf[0];
  for(uint64_t k = 0; k < nr && k < MAX_GROUP * 2; k++) {
    for(size_t i = 0; i < cs->n; i++) {
      const struct slot *s = &cs->slots[i];
      if(s->group != leader || s->id != buf[4 + 2 * k] || !s->c->available)
        continue;
      snap[i] = (struct bp_counter_snap){.raw = buf[3 + 2 * k],
                                         .enabled = buf[1],
                                         .running = buf[2], .ok = true};
    }
  }
}

bp_code bpi_counters_snapshot(const struct bp_counters *cs,
                              struct bp_counter_snap *snap,
                              struct bp_err *err)
{
  uint64_t buf[3 + 2 * (MAX_GROUP + 1)];
  memset(snap, 0, cs->n * sizeof(*snap));
  for(size_t i = 0; i < cs->n; i++) {
    const struct slot *s = &cs->slots[i];
    if(s->fd < 0 || s->group != (int)i)
      continue;
    ssize_t n = read(s->fd, buf, sizeof(buf));
    if(n < (ssize_t)(3 * sizeof(uint64_t)))
      return bpi_err_set(err, BPE_SYS, n < 0 ? errno : 0,
                         "reading counter group of '%s'", s->c->name);
    snap_group(cs, (int)i, buf, snap);
  }
  return BP_OK;
}

void bpi_counters_copy_free(struct bp_counter *c, size_t n)
{
  for(size_t i = 0; c && i < n; i++) {
    free(c[i].name);
    free(c[i].slug);
  }
  free(c);
}

/* One counter between two snapshots. */
static void delta_one(struct bp_counter *d, const struct bp_counter_snap *a,
                      const struct bp_counter_snap *b)
{
  uint64_t running = b->running - a->running;
  uint64_t enabled = b->enabled - a->enabled;
  if(!d->available)
    return;  /* the reason is the whole run's */
  if(!a->ok || !b->ok || !running || b->raw < a->raw) {
    d->available = false;
    snprintf(d->reason, sizeof(d->reason),
             "%s was not counted during this benchmark", d->name);
    return;
  }
  d->raw = b->raw - a->raw;
  d->running = (double)running / (double)enabled;
  d->value = running < enabled
               ? (double)d->raw * (double)enabled / (double)running
               : (double)d->raw;
}

bp_code bpi_counters_delta(const struct bp_counters *cs,
                           const struct bp_counter_snap *a,
                           const struct bp_counter_snap *b,
                           struct bp_counter **out, size_t *n)
{
  struct bp_counter *d = calloc(cs->n ? cs->n : 1, sizeof(*d));
  if(!d)
    return BPE_NOMEM;
  for(size_t i = 0; i < cs->n; i++) {
    d[i] = cs->counters[i];
    d[i].name = strdup(cs->counters[i].name);
    d[i].slug = strdup(cs->counters[i].slug);
    if(!d[i].name || !d[i].slug) {
      bpi_counters_copy_free(d, i + 1);
      return BPE_NOMEM;
    }
    delta_one(&d[i], &a[i], &b[i]);
  }
  *out = d;
  *n = cs->n;
  return BP_OK;
}

void bpi_counters_add(struct bp_counter *sum, const struct bp_counter *add,
                      size_t n)
{
  for(size_t i = 0; i < n; i++) {
    if(!sum[i].available)
      continue;
    if(!add[i].available) {
      /* a sum missing a piece would read as a smaller count */
      sum[i].available = false;
      memcpy(sum[i].reason, add[i].reason, sizeof(sum[i].reason));
      continue;
    }
    sum[i].raw += add[i].raw;
    sum[i].value += add[i].value;
    if(add[i].running < sum[i].running)
      sum[i].running = add[i].running;  /* the worst scaling, not hidden */
  }
}

const struct bp_counter *bpi_counters_list(const struct bp_counters *cs,
                                           size_t *n)
{
  *n = cs->n;
  return cs->counters;
}

const struct bp_counter *bpi_counters_find(const struct bp_counters *cs,
                                           const char *name)
{
  size_t n;
  const struct bp_counter *list = bpi_counters_list(cs, &n);
  for(size_t i = 0; i < n; i++)
    if(list[i].available &&
       (!strcmp(list[i].name, name) || !strcmp(list[i].slug, name)))
      return &list[i];
  return NULL;
}

void bpi_counters_json(struct bp_buf *b, const struct bp_counter *c,
                       size_t n)
{
  bpi_buf_adds(b, "[");
  for(size_t i = 0; i < n; i++) {
    bpi_buf_adds(b, i ? ",\n    {" : "\n    {");
    bpi_buf_adds(b, "\"name\": ");
    bpi_buf_json_str(b, c[i].name);
    bpi_buf_adds(b, ", \"slug\": ");
    bpi_buf_json_str(b, c[i].slug);
    bpi_buf_adds(b, ", \"unit\": ");
    bpi_buf_json_str(b, c[i].unit);
    if(c[i].available)
      bpi_buf_printf(b, ", \"available\": true, \"value\": %.17g, "
                        "\"raw\": %" PRIu64 ", \"running\": %.6f",
                     c[i].value, c[i].raw, c[i].running);
    else {
      bpi_buf_adds(b, ", \"available\": false, \"reason\": ");
      bpi_buf_json_str(b, c[i].reason);
    }
    bpi_buf_adds(b, "}");
  }
  bpi_buf_adds(b, n ? "\n  ]" : "]");
}

/* o's member key: the text s, its bytes that are no UTF-8 (an event
 * name is any bytes) each replaced by U+FFFD as bpi_buf_json_str does, so
 * that the JSON written is valid; false when out of memory. */
static bool add_text(cJSON *o, const char *key, const char *s)
{
  if(!s || bpi_text_utf8_valid(s))
    return cJSON_AddStringToObject(o, key, s ? s : "") != NULL;
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_buf_json_str(&b, s);
  cJSON *v = bpi_buf_failed(&b) ? NULL
                                : cJSON_ParseWithLength(b.data, b.len);
  bpi_buf_cleanup(&b);
  if(!v || !cJSON_AddItemToObject(o, key, v)) {
    cJSON_Delete(v);
    return false;
  }
  return true;
}

/* x to 6 decimals, as the text form ("%.6f") has it. */
static double six_decimals(double x)
{
  char tmp[64];
  snprintf(tmp, sizeof(tmp), "%.6f", x);
  return strtod(tmp, NULL);
}

/* One counter as an object of the array above; false when out of
 * memory. */
static bool add_counter(cJSON *arr, const struct bp_counter *c)
{
  cJSON *o = cJSON_CreateObject();
  if(!o)
    return false;
  if(!cJSON_AddItemToArray(arr, o)) {
    cJSON_Delete(o);
    return false;
  }
  bool ok = add_text(o, "name", c->name) && add_text(o, "slug", c->slug) &&
            add_text(o, "unit", c->unit) &&
            cJSON_AddBoolToObject(o, "available", c->available);
  if(ok && c->available)
    ok = cJSON_AddNumberToObject(o, "value", c->value) &&
         cJSON_AddNumberToObject(o, "raw", (double)c->raw) &&
         cJSON_AddNumberToObject(o, "running", six_decimals(c->running));
  else if(ok)
    ok = add_text(o, "reason", c->reason);
  return ok;
}

struct cJSON *bpi_counters_tree(const struct bp_counter *c, size_t n)
{
  cJSON *arr = cJSON_CreateArray();
  for(size_t i = 0; arr && i < n; i++) {
    if(!add_counter(arr, &c[i])) {
      cJSON_Delete(arr);
      return NULL;
    }
  }
  return arr;
}

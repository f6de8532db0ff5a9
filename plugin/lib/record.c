#include "bp_setup.h"
#include "record.h"
#include "converter.h"
#include "buf.h"
#include "err.h"
#include "events.h"
#include "symbols.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

struct bp_recorder {
  struct bp_record_opts opts;
  struct bp_event requested, used;
  bool fell_back;
  char fallback_reason[256];
  enum bp_call_graph call_graph;  /* as used: fp when DWARF was refused */
  uint32_t stack_bytes;           /* user stack copied per sample */
  char cg_fallback[256];
  struct bp_record_info info;
  struct bp_sampler *sampler;
  struct bp_symbols *sym;
  bool own_sym;                /* made here, not o->symbols */
  struct bp_converter *conv;
  struct bp_counters *counters;
  struct bp_profile *profile;
  struct bp_control *control;  /* NULL unless opts.control */
  bool kernel;                 /* kernel time sampled (asked, permitted) */
  char kernel_reason[160];     /* why not */
  char off_cpu_note[256];      /* off-CPU stacks not sampled: why */
  bp_code control_rc;          /* the first failure reading it */
};

/* err = "WHAT: the sampler's message", keeping its errno: the message
 * holds the errno's text already. */
static void wrap_open_error(struct bp_err *err, bp_code rc,
                            const struct bp_err *open_err, const char *fmt,
                            const char *what)
{
  char prefix[256];
  snprintf(prefix, sizeof(prefix), fmt, what);
  bpi_err_set(err, rc, 0, "%s: %s", prefix, open_err->msg);
  if(err && err->code == rc && !err->sys_errno)
    err->sys_errno = open_err->sys_errno;
}

/* The PMU refused LBR call stacks: say why and open the event again with
 * the auto call graph (frame pointers and stack copies). */
static bp_code lbr_refused(struct bp_recorder *r, struct bp_sample_cfg *cfg,
                           struct bp_err *open_err)
{
  int e = open_err->sys_errno;
  snprintf(r->cg_fallback, sizeof(r->cg_fallback),
           "the PMU refused LBR call stacks for '%s' (%s)", r->opts.event,
           strerrorname_np(e) ? strerrorname_np(e) : "error");
  r->info.call_graph_fallback = r->cg_fallback;
  r->call_graph = BP_CALL_GRAPH_AUTO;
  cfg->lbr = false;
  cfg->regs_user = bpi_unwind_regs_mask();
  cfg->stack_user = r->stack_bytes;
  cfg->switch_stack_user = BP_RECORD_SWITCH_STACK_BYTES;
  memset(open_err, 0, sizeof(*open_err));
  return bpi_sampler_open(r->sampler, cfg, &r->info.sampler, open_err);
}

/* Open the requested event, or the software clock when there is no PMU. */
static bp_code open_events(struct bp_recorder *r, struct bp_err *err)
{
  struct bp_sample_cfg cfg = {
    .attr = r->requested.attr, .freq = r->opts.freq,
    .period = r->opts.period, .kernel_callchain = r->kernel,
    .off_cpu = r->opts.off_cpu,
  };
  if(r->call_graph != BP_CALL_GRAPH_FP &&
     r->call_graph != BP_CALL_GRAPH_LBR) {
    cfg.regs_user = bpi_unwind_regs_mask();
    cfg.stack_user = r->stack_bytes;
    if(r->call_graph == BP_CALL_GRAPH_AUTO)
      cfg.switch_stack_user = BP_RECORD_SWITCH_STACK_BYTES;
  }
  cfg.lbr = r->call_graph == BP_CALL_GRAPH_LBR;
  struct bp_err open_err = {0};
  bp_code rc = bpi_sampler_open(r->sampler, &cfg, &r->info.sampler,
                                &open_err);
  if(rc && cfg.lbr && rc != BPE_PERM && rc != BPE_SYS)
    rc = lbr_refused(r, &cfg, &open_err);
  if(rc != BPE_NO_PMU) {
    if(rc)
      wrap_open_error(err, rc, &open_err, "event '%s'", r->opts.event);
    return rc;
  }
  snprintf(r->fallback_reason, sizeof(r->fallback_reason),
           "'%s' cannot be sampled on this machine (no hardware PMU: %s)",
           r->opts.event, strerrorname_np(open_err.sys_errno)
                            ? strerrorname_np(open_err.sys_errno)
                            : "error");
  rc = bpi_event_software_clock(&r->requested, &r->used, err);
  if(rc)
    return rc;
  r->fell_back = true;
  cfg.attr = r->used.attr;
  /* a software clock with a period counts nanoseconds, not events */
  if(!cfg.freq)
    cfg.freq = 997;
  memset(&open_err, 0, sizeof(open_err));
  rc = bpi_sampler_open(r->sampler, &cfg, &r->info.sampler, &open_err);
  if(rc)
    wrap_open_error(err, rc, &open_err, "%s", "software clock");
  return rc;
}

static const char *call_graph_name(enum bp_call_graph cg)
{
  return cg == BP_CALL_GRAPH_FP ? "fp" :
         cg == BP_CALL_GRAPH_DWARF ? "dwarf" :
         cg == BP_CALL_GRAPH_LBR ? "lbr" : "auto";
}

/* Frame pointers only when DWARF data cannot be had, and why. */
static void check_call_graph(struct bp_recorder *r)
{
  const struct bp_sampler_info *si = &r->info.sampler;
  if(r->call_graph == BP_CALL_GRAPH_FP || r->call_graph == BP_CALL_GRAPH_LBR)
    return;
  if(!bpi_unwind_regs_mask())
    snprintf(r->cg_fallback, sizeof(r->cg_fallback),
             "DWARF unwinding is not supported on this architecture");
  else if(si->stack_dropped)
    snprintf(r->cg_fallback, sizeof(r->cg_fallback),
             "the kernel refused user registers and stack copies (%s)",
             strerrorname_np(si->stack_errno) ?
             strerrorname_np(si->stack_errno) : "error");
  else
    return;
  r->call_graph = BP_CALL_GRAPH_FP;
  r->info.call_graph_fallback = r->cg_fallback;
}

static uint64_t mono_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The sampler's input callback: markers are applied as they arrive so the
 * counters are read as close to them as we can. */
static void on_control(void *ctx)
{
  struct bp_recorder *r = ctx;
  /* read even after a failure: the FIFO must be drained (see control.h) */
  bp_code rc = bpi_control_read(r->control, mono_ns());
  if(!r->control_rc)
    r->control_rc = rc;
}

/* Data pages per CPU ring with stack copies by default (record.h). */
static uint32_t default_dwarf_pages(uint64_t page)
{
  int *cpus = NULL;
  uint32_t ncpus = 1;
  if(bpi_sampler_online_cpus(&cpus, &ncpus) != BP_OK)
    ncpus = 1;
  free(cpus);
  uint64_t per_cpu = BP_RECORD_DWARF_RING_MAX;
  while(per_cpu > BP_RECORD_DWARF_RING_MIN &&
        per_cpu * ncpus > BP_RECORD_DWARF_RING_BUDGET)
    per_cpu /= 2;
  return per_cpu / page ? (uint32_t)(per_cpu / page) : 1;
}

/* The ring and stack copy sizes for the call graph: larger rings for
 * stack copies; with auto and a ring asked too small for 8 KiB samples, a
 * smaller copy rather than losing every sample. */
static bp_code stack_size(struct bp_recorder *r, uint32_t *pages,
                          struct bp_err *err)
{
  const struct bp_record_opts *o = &r->opts;
  uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
  if(o->call_graph == BP_CALL_GRAPH_FP)
    return BP_OK;
  r->stack_bytes = o->stack_bytes ? o->stack_bytes : BP_RECORD_STACK_BYTES;
  if(o->call_graph == BP_CALL_GRAPH_LBR)
    return BP_OK;  /* small samples; the size is for the auto fallback */
  if(r->stack_bytes % 8 || r->stack_bytes > BP_RECORD_MAX_STACK_BYTES)
    return bpi_err_set(err, BPE_INVAL, 0,
                       "stack copy of %u bytes: a multiple of 8 up to %d "
                       "is needed", r->stack_bytes,
                       BP_RECORD_MAX_STACK_BYTES);
  if(!*pages) {
    *pages = default_dwarf_pages(page);
    return BP_OK;
  }
  uint64_t fit = (*pages * page / 4) & ~(uint64_t)7;
  if(r->stack_bytes <= fit)
    return BP_OK;
  if(o->call_graph == BP_CALL_GRAPH_AUTO && fit >= 8) {
    r->stack_bytes = (uint32_t)fit;
    return BP_OK;
  }
  return bpi_err_set(err, BPE_INVAL, 0,
                     "a ring of %u pages is too small for %u-byte stack "
                     "copies: raise -m or lower the stack size", *pages,
                     r->stack_bytes);
}

/* The capability bit cap in /proc/self/status's CapEff. */
static bool cap_effective(unsigned cap)
{
  FILE *f = fopen("/proc/self/status", "re");
  char line[256];
  unsigned long long eff = 0;
  bool found = false;
  if(!f)
    return false;
  while(!found && fgets(line, sizeof(line), f))
    found = sscanf(line, "CapEff: %llx", &eff) == 1;
  fclose(f);
  return found && cap < 64 && (eff >> cap) & 1;
}

#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT 38

bool bpi_record_kernel_permitted(char *why, size_t len)
{
  if(cap_effective(CAP_PERFMON_BIT) || cap_effective(CAP_SYS_ADMIN_BIT))
    return true;
  FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
  int paranoid = 2;  /* the kernel's default when it cannot be read */
  if(f) {
    if(fscanf(f, "%d", &paranoid) != 1)
      paranoid = 2;
    fclose(f);
  }
  if(paranoid <= 1)
    return true;
  if(why)
    snprintf(why, len, "not permitted: kernel.perf_event_paranoid is %d "
             "and benchprof has neither CAP_PERFMON nor CAP_SYS_ADMIN",
             paranoid);
  return false;
}

/* Sample kernel time or not: asked for (the default) and permitted, or
 * asked for explicitly (-k: the kernel has the last word). */
static void decide_kernel(struct bp_recorder *r)
{
  const struct bp_record_opts *o = &r->opts;
  r->kernel = o->kernel &&
              (o->kernel_explicit ||
               bpi_record_kernel_permitted(r->kernel_reason,
                                           sizeof(r->kernel_reason)));
  if(!o->kernel)
    snprintf(r->kernel_reason, sizeof(r->kernel_reason),
             "user space only was asked for");
}

/* After opening: whether kernel time is sampled, and why not. */
static void note_kernel(struct bp_recorder *r)
{
  const struct bp_event *ev = r->fell_back ? &r->used : &r->requested;
  bool excluded = ev->attr.exclude_kernel;  /* a :u modifier says so too */
  if(r->kernel && r->info.sampler.kernel_dropped)
    snprintf(r->kernel_reason, sizeof(r->kernel_reason),
             "refused by the kernel (perf_event_paranoid)");
  else if(r->kernel && excluded)
    snprintf(r->kernel_reason, sizeof(r->kernel_reason),
             "the event's modifier asks for user space only");
  r->info.kernel_sampled = r->kernel && !excluded &&
                           !r->info.sampler.kernel_dropped;
  r->info.kernel_user_choice = !r->opts.kernel ||
                               (r->kernel && excluded &&
                                !r->info.sampler.kernel_dropped);
  r->info.kernel_reason = r->info.kernel_sampled ? NULL : r->kernel_reason;
}

/* Off-CPU intervals go to the converter, with the ids of the samples that
 * hold the stacks at switch-out, or the reason there are none. */
static void note_off_cpu(struct bp_recorder *r)
{
  size_t n;
  const uint64_t *ids = bpi_sampler_switch_ids(r->sampler, &n);
  bpi_converter_off_cpu(r->conv, ids, n);
  r->info.off_cpu = true;
  if(r->info.sampler.off_cpu_stacks)
    return;
  int e = r->info.sampler.off_cpu_errno;
  snprintf(r->off_cpu_note, sizeof(r->off_cpu_note),
           "the stacks at switch-out are not sampled: the kernel refused the "
           "context-switches event (%s%s); each wait is charged to the "
           "thread's last on-CPU sample",
           strerrorname_np(e) ? strerrorname_np(e) : "error",
           e == EACCES || e == EPERM ? ", perf_event_paranoid" : "");
  r->info.off_cpu_stack_note = r->off_cpu_note;
}

bp_code bpi_record_symbols_new(const struct bp_record_opts *o,
                               struct bp_symbols **out)
{
  struct bp_symbols_opts so = {.demangle = o->demangle,
                               .lines = o->lines,
                               .no_inline = o->no_inline,
                               .debuginfod = o->debuginfod,
                               .debuginfod_cache = o->debuginfod_cache,
                               .debuginfod_timeout_ms =
                                 o->debuginfod_timeout_ms};
  return bpi_symbols_new(out, &so);
}

bp_code bpi_recorder_new(struct bp_recorder **out,
                         const struct bp_record_opts *o, struct bp_err *err)
{
  struct bp_recorder *r = calloc(1, sizeof(*r));
  if(!r)
    return bpi_err_set(err, BPE_NOMEM, 0, "recorder");
  r->opts = *o;
  decide_kernel(r);
  bp_code rc = bpi_event_parse(o->event, r->kernel, &r->requested, err);
  if(rc)
    goto fail;
  if(o->symbols) {
    r->sym = o->symbols;
    bpi_symbols_begin_recording(r->sym);
  }
  else {
    rc = bpi_record_symbols_new(o, &r->sym);
    r->own_sym = true;
  }
  if(!rc)
    rc = bpi_profile_new(&r->profile);
  if(rc) {
    bpi_err_set(err, rc, 0, "recorder");
    goto fail;
  }
  r->call_graph = o->call_graph;
  uint32_t pages = o->ring_pages;
  rc = stack_size(r, &pages, err);
  if(rc)
    goto fail;
  struct bp_sampler_opts sopts = {
    .argv = o->argv, .ring_pages = pages,
    .on_output = o->on_output, .output_ctx = o->output_ctx,
    .input_fd = -1,
    .spill_dir = o->tmpdir && *o->tmpdir ? o->tmpdir : "/tmp",
    .spill_disk_only = o->spill_disk_only,
    .whole_stacks = o->whole_stacks,
    .sigmask = o->sigmask,
  };
  r->info.spill_dir = sopts.spill_dir;
  if(o->control) {
    rc = bpi_control_new(&r->control, o->tmpdir, o->runtime_dir, err);
    if(rc)
      goto fail;
    sopts.env_add = bpi_control_env(r->control);
    sopts.input_fd = bpi_control_fd(r->control);
    sopts.on_input = on_control;
    sopts.input_ctx = r;
  }
  rc = bpi_sampler_new(&r->sampler, &sopts, err);
  if(!rc)
    rc = open_events(r, err);
  if(!rc)
    check_call_graph(r);
  if(!rc)
    note_kernel(r);
  if(!rc && o->counters)
    rc = bpi_counters_open(&r->counters, o->counters,
                           bpi_sampler_pid(r->sampler),
                           !o->counters_user_only, err);
  if(!rc && r->control)
    bpi_control_set_counters(r->control, r->counters);
  if(!rc)
    rc = bpi_converter_new(&r->conv, r->profile, r->sym,
                           bpi_sampler_layout(r->sampler), r->call_graph);
  if(rc)
    goto fail;
  bpi_converter_process_before_exec(r->conv, bpi_sampler_pid(r->sampler));
  if(o->off_cpu)
    note_off_cpu(r);
  const struct bp_event *ev = r->fell_back ? &r->used : &r->requested;
  r->info.requested_event = o->event;
  r->info.event = ev->name;  /* the short name people know it by */
  r->info.fallback_reason = r->fell_back ? r->fallback_reason : NULL;
  r->info.call_graph = call_graph_name(r->call_graph);
  r->info.precise_max = !r->fell_back && r->requested.precise_max;
  *out = r;
  return BP_OK;
fail:
  bpi_recorder_free(r);
  return err->code ? err->code : rc;
}

void bpi_recorder_free(struct bp_recorder *r)
{
  if(!r)
    return;
  bpi_sampler_free(r->sampler);
  bpi_converter_free(r->conv);
  bpi_counters_free(r->counters);
  if(r->own_sym)
    bpi_symbols_free(r->sym);
  bpi_profile_free(r->profile);
  bpi_control_free(r->control);
  bpi_event_cleanup(&r->requested);
  if(r->fell_back)
    bpi_event_cleanup(&r->used);
  free(r);
}

void bpi_recorder_end(struct bp_recorder *r)
{
  if(!r)
    return;
  bpi_control_free(r->control);
  r->control = NULL;
}

const struct bp_record_info *bpi_recorder_info(const struct bp_recorder *r)
{
  return &r->info;
}

pid_t bpi_recorder_pid(const struct bp_recorder *r)
{
  return bpi_sampler_pid(r->sampler);
}

bp_code bpi_recorder_run(struct bp_recorder *r, struct bp_err *err)
{
  bp_code rc = bpi_sampler_start(r->sampler, err);
  if(rc)
    return rc;
  rc = bpi_sampler_run(r->sampler, bpi_converter_record, r->conv, err);
  r->info.spill_errno = bpi_sampler_spill_errno(r->sampler);
  if(r->counters) {
    bp_code crc = bpi_counters_read(r->counters, err);
    if(!rc)
      rc = crc;
  }
  if(r->control) {
    bp_code frc = bpi_control_finish(r->control,
                                     bpi_sampler_end_ns(r->sampler));
    if(!r->control_rc)
      r->control_rc = frc;
  }
  if(!rc && r->control_rc)
    rc = bpi_err_set(err, r->control_rc, 0, "benchmark markers");
  return rc;
}

const struct bp_control_stats *bpi_recorder_control_stats(
  const struct bp_recorder *r)
{
  return r->control ? bpi_control_stats(r->control) : NULL;
}

static uint64_t clamp(uint64_t t, uint64_t lo, uint64_t hi)
{
  return t < lo ? lo : t > hi ? hi : t;
}

/* One profile marker per benchmark segment.  Times come from the harness:
 * they are held to the run's, so a wrong clock cannot make a benchmark
 * longer than the run. */
static bp_code add_markers(struct bp_recorder *r)
{
  size_t n = 0;
  const struct bp_segment *seg = r->control
                                   ? bpi_control_segments(r->control, &n)
                                   : NULL;
  uint64_t t0 = r->profile->meta.start_ns, t1 = r->profile->meta.end_ns;
  bp_code rc = BP_OK;
  for(size_t i = 0; !rc && i < n; i++)
    rc = bpi_profile_add_marker(r->profile, seg[i].name,
                                clamp(seg[i].begin_ns, t0, t1),
                                clamp(seg[i].end_ns, t0, t1),
                                seg[i].counters, seg[i].ncounters);
  return rc;
}

const struct bp_counter *bpi_recorder_counters(const struct bp_recorder *r,
                                               size_t *n)
{
  *n = 0;
  return r->counters ? bpi_counters_list(r->counters, n) : NULL;
}

int bpi_recorder_exit_status(const struct bp_recorder *r)
{
  int st = bpi_sampler_wait_status(r->sampler);
  if(WIFEXITED(st))
    return WEXITSTATUS(st);
  if(WIFSIGNALED(st))
    return 128 + WTERMSIG(st);
  return 1;
}

/* Whether the option, variable or header name n (len bytes, dashes
 * included) names a secret: it holds token, secret, pass (password,
 * passwd, --db-pass), credential, auth or apikey anywhere (any case), or
 * "key" as a whole word between non-alphanumeric characters (--key,
 * --api-key, AWS_SECRET_ACCESS_KEY, X-Api-Key, but not --keys or
 * --monkey).  Rather too much than too little: the command line is
 * published, and --author=x, --tokenizer=y or --passes=3 lose their value
 * in it too. */
static bool secret_name(const char *n, size_t len)
{
  static const char *const parts[] = {"token", "secret", "pass",
    "credential", "auth", "apikey"};
  char low[256];
  if(len >= sizeof(low))
    len = sizeof(low) - 1;
  for(size_t i = 0; i < len; i++)
    low[i] = (char)tolower((unsigned char)n[i]);
  low[len] = '\0';
  for(size_t i = 0; i < BP_ARRAY_LEN(parts); i++)
    if(strstr(low, parts[i]))
      return true;
  for(const char *k = strstr(low, "key"); k; k = strstr(k + 1, "key"))
    if((k == low || !isalnum((unsigned char)k[-1])) &&
       !isalnum((unsigned char)k[3]))
      return true;
  return false;
}

/* The authentication schemes whose credentials follow them after a
 * blank, in a header value or anywhere in an argument. */
static const char *const auth_schemes[] = {"Bearer", "Basic", "Token",
  "Digest", "Negotiate"};

/* The end of the scheme word at p followed by blanks (the start of its
 * credentials), or NULL when p does not start with one. */
static const char *after_scheme(const char *p)
{
  for(size_t i = 0; i < BP_ARRAY_LEN(auth_schemes); i++) {
    size_t n = strlen(auth_schemes[i]);
    if(!strncasecmp(p, auth_schemes[i], n) && (p[n] == ' ' || p[n] == '\t'))
      return p + n + strspn(p + n, " \t");
  }
  return NULL;
}

/* Where the secret part of argument a starts, NULL when it has none: the
 * value of a header with a secret name ("Authorization: Bearer X",
 * "X-Api-Key: X"), after its scheme when it has one; else what follows a
 * scheme word ("Bearer X", "Basic X") anywhere in a. */
static const char *secret_value(const char *a)
{
  size_t name = strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTU"
                          "VWXYZ0123456789-_");
  if(name && a[name] == ':' && secret_name(a, name)) {
    const char *v = a + name + 1;
    v += strspn(v, " \t");
    const char *cred = after_scheme(v);
    v = cred ? cred : v;
    return *v ? v : NULL;
  }
  for(const char *p = a; *p; p++)
    if(p == a || !isalnum((unsigned char)p[-1])) {
      const char *cred = after_scheme(p);
      if(cred && *cred)
        return cred;
    }
  return NULL;
}

/* a's first len bytes with each URL's user information ("user:pw@"
 * between "://" and the host) as "***@". */
static void add_without_userinfo(struct bp_buf *b, const char *a, size_t len)
{
  const char *end = a + len;
  const char *p = a;
  for(;;) {
    const char *s = NULL;
    for(const char *q = p; q + 3 <= end && !s; q++)
      if(!strncmp(q, "://", 3))
        s = q + 3;
    if(!s)
      break;
    const char *at = NULL;
    for(const char *q = s; q < end && !strchr("/?#", *q); q++)
      if(*q == '@')
        at = q;   /* the last '@' before the path: a password may hold one */
    bpi_buf_add(b, p, (size_t)(s - p));
    if(at) {
      bpi_buf_adds(b, "***");
      s = at;
    }
    p = s;
  }
  bpi_buf_add(b, p, (size_t)(end - p));
}

/* Whether the word w (len bytes) is an option whose value is a
 * user:password (curl's -u/--user and -U/--proxy-user, wget's --user). */
static bool user_option(const char *w, size_t len)
{
  static const char *const opts[] = {"-u", "-U", "--user", "--proxy-user"};
  for(size_t i = 0; i < BP_ARRAY_LEN(opts); i++)
    if(strlen(opts[i]) == len && !strncmp(w, opts[i], len))
      return true;
  return false;
}

/* The length of the option that starts the word w (len bytes) and has a
 * user:password attached ("--user=", "--proxy-user=", "-u", "-U"), 0 when
 * none. */
static size_t user_attached(const char *w, size_t len)
{
  static const char *const pre[] = {"--user=", "--proxy-user=", "-u", "-U"};
  for(size_t i = 0; i < BP_ARRAY_LEN(pre); i++) {
    size_t n = strlen(pre[i]);
    if(len > n && !strncmp(w, pre[i], n))
      return n;
  }
  return 0;
}

/* The value v (len bytes) of a user option as published: a user:password
 * keeps "user:" and has *** for the password (the quote that closes a
 * quoted one stays, so a shell command stays one); one without a colon is
 * a user alone, or no user option at all (python -u script.py), and is
 * kept. */
static void add_user_value(struct bp_buf *b, const char *v, size_t len)
{
  const char *colon = memchr(v, ':', len);
  if(!colon) {
    bpi_buf_add(b, v, len);
    return;
  }
  bpi_buf_add(b, v, (size_t)(colon - v) + 1);
  bpi_buf_adds(b, "***");
  if(len > 1 && (v[0] == '\'' || v[0] == '"') && v[len - 1] == v[0])
    bpi_buf_addc(b, v[0]);
}

/* a with the password of each user:password given to a user option
 * (user_option, user_attached) as ***: as an argument of its own (-u
 * user:pw, -uuser:pw, --user=user:pw) or as words in an argument that is
 * a shell command (sh -c 'curl -u user:pw URL').  *user_next: the last
 * word was such an option, so the next one, in this argument or the
 * next, is its value. */
static void add_without_password(struct bp_buf *b, const char *a,
                                 bool *user_next)
{
  bpi_buf_add(b, a, 0);   /* "" stays an argument */
  for(const char *p = a; *p;) {
    size_t blanks = strspn(p, " \t\n");
    bpi_buf_add(b, p, blanks);
    p += blanks;
    size_t len = strcspn(p, " \t\n");
    size_t opt = *user_next ? 0 : user_attached(p, len);
    if(len && (*user_next || opt)) {
      bpi_buf_add(b, p, opt);
      add_user_value(b, p + opt, len - opt);
      *user_next = false;
    } else if(len) {
      *user_next = user_option(p, len);
      bpi_buf_add(b, p, len);
    }
    p += len;
  }
}

/* Whether a is an option alone ("--token", "-X-Auth"), no value attached
 * ("-Hx-api-key: V" carries its own): only such an option makes the next
 * argument its value. */
static bool bare_option(const char *a)
{
  return a[0] == '-' &&
         strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                   "0123456789-_") == strlen(a);
}

/* The argument a as published: NAME=VALUE, -NAME=VALUE and --NAME=VALUE
 * with a secret NAME keep NAME= and have *** for the value; *hide_next
 * is set for a bare secret option (--token VALUE, bare_option: not
 * "-Hx-api-key: V", whose value is attached) and then hides the next
 * argument whole, whatever it is; a secret header's value or a
 * scheme's credentials become *** (secret_value), and a URL's user
 * information ***@.  The program gets the real ones. */
static void add_redacted(struct bp_buf *b, const char *a, bool *hide_next)
{
  if(*hide_next) {
    *hide_next = false;
    bpi_buf_adds(b, "***");
    return;
  }
  const char *eq = strchr(a, '=');
  if(eq && eq > a && secret_name(a, (size_t)(eq - a))) {
    bpi_buf_add(b, a, (size_t)(eq - a) + 1);
    bpi_buf_adds(b, "***");
    return;
  }
  if(!eq && bare_option(a) && secret_name(a, strlen(a)))
    *hide_next = true;
  const char *cut = secret_value(a);
  add_without_userinfo(b, a, cut ? (size_t)(cut - a) : strlen(a));
  if(cut)
    bpi_buf_adds(b, "***");
}

/* argv joined with spaces, each argument quoted for a POSIX shell when it
 * holds anything but plain characters, so the line can be pasted back;
 * secret values are *** (add_without_password, add_redacted): this line
 * is what the manifest, the summary, every export and the comment
 * show. */
static char *join_command(char *const *argv)
{
  struct bp_buf b, one, plain;
  bool hide_next = false, user_next = false;
  bpi_buf_init(&b);
  bpi_buf_init(&one);
  bpi_buf_init(&plain);
  for(size_t i = 0; argv[i]; i++) {
    bpi_buf_reset(&one);
    bpi_buf_reset(&plain);
    add_without_password(&plain, argv[i], &user_next);
    if(!bpi_buf_failed(&plain) && plain.data)
      add_redacted(&one, plain.data, &hide_next);
    if(bpi_buf_failed(&plain) || !plain.data || bpi_buf_failed(&one) ||
       !one.data) {
      bpi_buf_cleanup(&plain);
      bpi_buf_cleanup(&one);
      bpi_buf_cleanup(&b);
      return NULL;
    }
    const char *a = one.data;
    if(i)
      bpi_buf_addc(&b, ' ');
    bpi_buf_shell_word(&b, a, true);
  }
  bpi_buf_cleanup(&plain);
  bpi_buf_cleanup(&one);
  if(bpi_buf_failed(&b) || !b.data) {
    bpi_buf_cleanup(&b);
    return NULL;
  }
  return b.data;  /* the buffer's memory becomes the string */
}

static bp_code fill_meta(struct bp_recorder *r)
{
  struct bp_profile_meta *m = &r->profile->meta;
  const struct bp_event *ev = r->fell_back ? &r->used : &r->requested;
  char host[256] = "";
  gethostname(host, sizeof(host) - 1);
  bp_code rc = bpi_profile_meta_set(&m->requested_event, r->opts.event);
  if(!rc)
    rc = bpi_profile_meta_set(&m->event, r->info.event);
  if(!rc)
    rc = bpi_profile_meta_set(&m->fallback_reason, r->info.fallback_reason);
  if(!rc)
    rc = bpi_profile_meta_set(&m->call_graph, r->info.call_graph);
  if(!rc)
    rc = bpi_profile_meta_set(&m->call_graph_fallback,
                              r->info.call_graph_fallback);
  if(r->call_graph != BP_CALL_GRAPH_FP && r->call_graph != BP_CALL_GRAPH_LBR)
    m->stack_bytes = r->stack_bytes;
  if(!r->fell_back) {
    m->precise_requested = r->info.sampler.precise_requested;
    m->precise_used = r->info.sampler.precise_used;
    m->precise_max = r->info.precise_max;
  }
  if(!rc)
    rc = bpi_profile_meta_set(&m->host, host);
  char *cmd = join_command(r->opts.argv);
  if(!cmd)
    return BPE_NOMEM;
  free(m->command);
  m->command = cmd;
  m->time_event = ev->is_time;
  m->freq = r->info.sampler.freq;
  m->period = m->freq ? 0 : r->opts.period;
  m->start_epoch_ms = bpi_sampler_start_epoch_ms(r->sampler);
  m->start_ns = bpi_sampler_start_ns(r->sampler);
  m->end_ns = bpi_sampler_end_ns(r->sampler);
  m->exit_status = bpi_recorder_exit_status(r);
  m->ring_bytes = (uint64_t)r->info.sampler.ring_pages *
                  (uint64_t)sysconf(_SC_PAGESIZE);
  m->spilled_bytes = bpi_sampler_spilled(r->sampler,
                                         &m->spill_trimmed_bytes);
  m->stack_tops_learned = bpi_sampler_stack_tops_learned(r->sampler);
  m->corrupt_records = bpi_sampler_corrupt(r->sampler) +
                       bpi_converter_bad_records(r->conv);
  size_t nc;
  const struct bp_counter *c = bpi_recorder_counters(r, &nc);
  m->kernel_unsampled = !r->info.kernel_sampled;
  m->kernel_user_choice = r->info.kernel_user_choice;
  if(!rc)
    rc = bpi_profile_meta_set(&m->kernel_reason, r->info.kernel_reason);
  if(!rc)
    rc = bpi_profile_meta_set(&m->off_cpu_stack_note,
                              r->info.off_cpu_stack_note);
  for(size_t i = 0; i < nc; i++)
    if(c[i].available && !strcmp(c[i].slug, "task-clock"))
      m->task_clock_ns = c[i].value;
  if(!rc)
    rc = bpi_profile_set_counters(r->profile, c, nc);
  if(!rc)
    rc = add_markers(r);
  return rc;
}

bp_code bpi_recorder_finish(struct bp_recorder *r, struct bp_profile **out,
                            struct bp_err *err)
{
  bp_code rc = fill_meta(r);
  if(rc)
    return bpi_err_set(err, rc, 0, "profile metadata");
  rc = bpi_converter_finish(r->conv, err);
  bpi_symbols_debuginfod_stats(r->sym, &r->info.debuginfod);
  struct bp_symbols_tables t;
  bpi_symbols_tables(r->sym, &t);
  r->profile->meta.symbol_tables_read = t.read;
  r->profile->meta.symbol_tables_reused = t.reused;
  if(rc)
    return rc;
  *out = r->profile;
  r->profile = NULL;
  return BP_OK;
}

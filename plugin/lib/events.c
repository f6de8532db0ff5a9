/* events: event names -> struct perf_event_attr.  The only file of
 * benchprof that includes libpfm4 headers (see events.h).
 *
 * libpfm4 is loaded with dlopen() at first need, not linked: relocating its
 * event tables (some 40,000 relative relocations) and pfm_initialize()'s
 * PMU detection cost every benchprof process several milliseconds, yet
 * the default events are perf's generic ones, which libpfm4 encodes to
 * PERF_TYPE_HARDWARE / PERF_TYPE_SOFTWARE configs anyway.  A plain generic
 * name ("cycles", "task-clock": no PMU prefix, no modifier) is encoded from
 * the table below into exactly what libpfm4 gives (test_events compares
 * the two); anything else, and listing and suggestions, goes through
 * libpfm4, whose calls go through pfm_api. */
#include "bp_setup.h"
#include "events.h"
#include "dynlib.h"
#include "err.h"
#include "buf.h"
#include "text.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>

/* the kernel's struct perf_event_attr (from events.h) wins over libpfm's */
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>

/* Names longer than this are never close to anything: skip them when
 * suggesting (the edit distance's limit, BP_TEXT_EDIT_MAX, is above). */
#define NAME_MAX_CMP 127

/* Room for "pmu::event" in listings. */
#define FULLNAME_LEN 320

/* ------------------------------------------------------------ loading */

#ifndef PFM_SONAME
#define PFM_SONAME "libpfm.so.4"   /* configure found none */
#endif

/* The libpfm4 functions used here, each named without its "pfm_", with
 * the prototypes of the header (pfm_for_all_pmus is a macro). */
static struct {
  __typeof__(pfm_initialize) *initialize;
  __typeof__(pfm_strerror) *strerror;
  __typeof__(pfm_get_os_event_encoding) *get_os_event_encoding;
  __typeof__(pfm_get_pmu_info) *get_pmu_info;
  __typeof__(pfm_get_event_next) *get_event_next;
  __typeof__(pfm_get_event_info) *get_event_info;
} pfm_api;

/* Loading and pfm_initialize() run once; load_error says why they failed
 * ("" when they did not). */
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[512];

static void load_pfm(void)
{
  struct bp_dynlib l;
  if(!bpi_dynlib_open(&l, PFM_SONAME, load_error, sizeof(load_error)))
    return;
  BPI_DYNLIB_LOAD(&l, pfm_api, "pfm_", initialize);
  BPI_DYNLIB_LOAD(&l, pfm_api, "pfm_", strerror);
  BPI_DYNLIB_LOAD(&l, pfm_api, "pfm_", get_os_event_encoding);
  BPI_DYNLIB_LOAD(&l, pfm_api, "pfm_", get_pmu_info);
  BPI_DYNLIB_LOAD(&l, pfm_api, "pfm_", get_event_next);
  BPI_DYNLIB_LOAD(&l, pfm_api, "pfm_", get_event_info);
  if(!bpi_dynlib_done(&l))
    return;
  int ret = pfm_api.initialize();
  if(ret != PFM_SUCCESS)
    snprintf(load_error, sizeof(load_error), "libpfm4: %s",
             pfm_api.strerror(ret));
}

/* Load and initialise libpfm4 unless done already. */
static bp_code pfm_ready(struct bp_err *err)
{
  pthread_once(&load_once, load_pfm);
  if(load_error[0])
    return bpi_err_set(err, BPE_LIBPFM, 0, "%s", load_error);
  return BP_OK;
}

/* ------------------------------------------------------------ encoding */

static bool is_time_attr(const struct perf_event_attr *attr)
{
  return attr->type == PERF_TYPE_SOFTWARE &&
         (attr->config == PERF_COUNT_SW_CPU_CLOCK ||
          attr->config == PERF_COUNT_SW_TASK_CLOCK);
}

/* Start of the event part of name: after the last "::" (the PMU prefix). */
static const char *event_part(const char *name)
{
  const char *p = name;
  const char *s = strstr(p, "::");
  while(s) {
    p = s + 2;
    s = strstr(p, "::");
  }
  return p;
}

/* True when the modifier token [tok, end) is one of the privilege-level
 * modifiers u, k, h (alone or as u=0/u=1). */
static bool is_plm_token(const char *tok, const char *end)
{
  const char *eq = memchr(tok, '=', (size_t)(end - tok));
  size_t len = (size_t)((eq ? eq : end) - tok);
  if(len != 1)
    return false;
  int c = tolower((unsigned char)tok[0]);
  return c == 'u' || c == 'k' || c == 'h';
}

/* True when name carries its own privilege-level modifier (":u", ":k=1"). */
static bool has_plm_modifier(const char *name)
{
  const char *p = strchr(event_part(name), ':');
  while(p) {
    const char *tok = p + 1;
    const char *end = strchr(tok, ':');
    if(!end)
      end = tok + strlen(tok);
    if(is_plm_token(tok, end))
      return true;
    p = *end ? end : NULL;
  }
  return false;
}

/* ------------------------------------------------------------ perf's modifiers */

/* perf's single-letter modifiers (tools/perf/util/parse-events.l) that
 * libpfm4 has no counterpart for, and what to write instead. */
static const struct {
  char letter;
  const char *meaning;
  const char *advice;
} perf_only_modifiers[] = {
  { 'S', "read the group in every sample",
    "count events with --counters instead" },
  { 'W', "weak group", "drop it: benchprof splits groups itself" },
  { 'I', "exclude idle", "drop it" },
  { 'b', "BPF counter", "drop it" },
  { 'R', "retire latency", "drop it" },
  { 'X', "no group regrouping", "drop it" },
  { 'e', "exclusive", "write libpfm4's ':excl' instead" },
};

/* The letters a perf modifier group is made of. */
#define PERF_MODIFIER_LETTERS "ukhpPGHDSWIbRXe"

/* True when tok (len bytes) is a group of perf modifier letters that
 * libpfm4 would not read the same way: "pp", "upp", "P", "G", "D".  The
 * single letters u, k and h mean the same in both; a single e is libpfm4's
 * edge detection. */
static bool is_perf_group(const char *tok, size_t len)
{
  if(!len || memchr(tok, '=', len))
    return false;
  for(size_t i = 0; i < len; i++)
    if(!strchr(PERF_MODIFIER_LETTERS, tok[i]))
      return false;
  if(len == 1 && strchr("ukhe", tok[0]))
    return false;
  return true;
}

/* Append the libpfm4 tokens for one perf modifier group to b. */
static bp_code translate_group(const char *name, const char *tok, size_t len,
                               struct bp_buf *b, bool *precise_max,
                               struct bp_err *err)
{
  unsigned p = 0;
  bool max = false, guest = false, host = false, pinned = false;
  bool plm[3] = {false, false, false};  /* u, k, h, in that order */
  for(size_t i = 0; i < len; i++) {
    char ch = tok[i];
    for(size_t j = 0; j < BP_ARRAY_LEN(perf_only_modifiers); j++)
      if(perf_only_modifiers[j].letter == ch)
        return bpi_err_set(err, BPE_INVAL, 0,
                           "event '%s': perf's modifier '%c' (%s) has no "
                           "libpfm4 counterpart: %s", name, ch,
                           perf_only_modifiers[j].meaning,
                           perf_only_modifiers[j].advice);
    plm[0] |= ch == 'u';
    plm[1] |= ch == 'k';
    plm[2] |= ch == 'h';
    p += ch == 'p';
    max |= ch == 'P';
    guest |= ch == 'G';
    host |= ch == 'H';
    pinned |= ch == 'D';
  }
  if(p > 3 || (p && max))
    return bpi_err_set(err, BPE_INVAL, 0,
                       "event '%s': at most three p (:ppp, libpfm4's "
                       "precise=3), or :P for the highest precision the "
                       "PMU accepts", name);
  static const char *const plm_tok[] = {":u", ":k", ":h"};
  for(size_t i = 0; i < 3; i++)
    if(plm[i])
      bpi_buf_adds(b, plm_tok[i]);
  if(p || max)
    bpi_buf_printf(b, ":precise=%u", max ? 3u : p);
  if(guest || host)
    bpi_buf_printf(b, ":mg=%d:mh=%d", guest ? 1 : 0, host ? 1 : 0);
  if(pinned)
    bpi_buf_adds(b, ":pinned");
  *precise_max |= max;
  return BP_OK;
}

bp_code bpi_event_translate(const char *name, char **out, bool *precise_max,
                            struct bp_err *err)
{
  struct bp_buf b;
  bool max = false;
  *out = NULL;
  const char *ev = event_part(name);
  const char *mods = strchr(ev, ':');
  bpi_buf_init(&b);
  bpi_buf_add(&b, name, mods ? (size_t)(mods - name) : strlen(name));
  bp_code rc = BP_OK;
  for(const char *p = mods; !rc && p; ) {
    const char *tok = p + 1;
    const char *end = strchr(tok, ':');
    size_t len = end ? (size_t)(end - tok) : strlen(tok);
    if(is_perf_group(tok, len))
      rc = translate_group(name, tok, len, &b, &max, err);
    else {
      bpi_buf_addc(&b, ':');
      bpi_buf_add(&b, tok, len);
    }
    p = end;
  }
  if(!rc && (bpi_buf_failed(&b) || !b.data))
    rc = bpi_err_set(err, BPE_NOMEM, 0, "event '%s'", name);
  if(rc) {
    bpi_buf_cleanup(&b);
    return rc;
  }
  if(precise_max)
    *precise_max = max;
  *out = b.data;  /* the buffer's memory becomes the string */
  return BP_OK;
}

/* Encode str into attr with libpfm4; *fstr gets the fully qualified name
 * (malloc'd) when fstr is not NULL.  Returns a PFM_* code. */
static int encode(const char *str, int plm, struct perf_event_attr *attr,
                  char **fstr)
{
  pfm_perf_encode_arg_t arg;
  memset(attr, 0, sizeof(*attr));
  attr->size = sizeof(*attr);
  memset(&arg, 0, sizeof(arg));
  arg.size = sizeof(arg);
  arg.attr = attr;
  arg.fstr = fstr;
  int ret = pfm_api.get_os_event_encoding(str, plm, PFM_OS_PERF_EVENT_EXT,
                                          &arg);
  attr->size = sizeof(*attr);
  return ret;
}

/* perf's generic events, as libpfm4's "perf" PMU names them: the names
 * `perf list` shows as Hardware and Software events that libpfm4 accepts
 * (it knows neither alignment-faults nor emulation-faults).  libpfm4
 * looks a name up in the tables of the PMUs it found before perf's, so the
 * table is only right where none of those has an event of the same name:
 * checked for every x86 table of libpfm4 4.13 (the one such event,
 * knc::BRANCHES, is Knights Corner's, a coprocessor that runs k1om, not
 * x86-64, programs); MIPS 74K, for one, has CYCLES and INSTRUCTIONS.
 * Elsewhere the table is empty and every name goes to libpfm4. */
struct generic_event {
  const char *name;      /* matched ignoring case, as libpfm4 does */
  const char *pfm_name;  /* libpfm4's name: PERF_COUNT_HW_* or _SW_* */
  uint32_t type;         /* PERF_TYPE_HARDWARE or PERF_TYPE_SOFTWARE */
  uint64_t config;
};

#define HW(n, p, c) { n, "PERF_COUNT_HW_" p, PERF_TYPE_HARDWARE, \
                      PERF_COUNT_HW_##c }
#define SW(n, p, c) { n, "PERF_COUNT_SW_" p, PERF_TYPE_SOFTWARE, \
                      PERF_COUNT_SW_##c }
static const struct generic_event generic_events[] = {
#if defined(__x86_64__) || defined(__i386__)
  HW("cycles", "CPU_CYCLES", CPU_CYCLES),
  HW("cpu-cycles", "CPU_CYCLES", CPU_CYCLES),
  HW("instructions", "INSTRUCTIONS", INSTRUCTIONS),
  HW("cache-references", "CACHE_REFERENCES", CACHE_REFERENCES),
  HW("cache-misses", "CACHE_MISSES", CACHE_MISSES),
  HW("branches", "BRANCH_INSTRUCTIONS", BRANCH_INSTRUCTIONS),
  HW("branch-instructions", "BRANCH_INSTRUCTIONS", BRANCH_INSTRUCTIONS),
  HW("branch-misses", "BRANCH_MISSES", BRANCH_MISSES),
  HW("bus-cycles", "BUS_CYCLES", BUS_CYCLES),
  HW("stalled-cycles-frontend", "STALLED_CYCLES_FRONTEND",
     STALLED_CYCLES_FRONTEND),
  HW("stalled-cycles-backend", "STALLED_CYCLES_BACKEND",
     STALLED_CYCLES_BACKEND),
  HW("ref-cycles", "REF_CPU_CYCLES", REF_CPU_CYCLES),
  SW("cpu-clock", "CPU_CLOCK", CPU_CLOCK),
  SW("task-clock", "TASK_CLOCK", TASK_CLOCK),
  SW("page-faults", "PAGE_FAULTS", PAGE_FAULTS),
  SW("faults", "PAGE_FAULTS", PAGE_FAULTS),
  SW("minor-faults", "PAGE_FAULTS_MIN", PAGE_FAULTS_MIN),
  SW("major-faults", "PAGE_FAULTS_MAJ", PAGE_FAULTS_MAJ),
  SW("context-switches", "CONTEXT_SWITCHES", CONTEXT_SWITCHES),
  SW("cs", "CONTEXT_SWITCHES", CONTEXT_SWITCHES),
  SW("cpu-migrations", "CPU_MIGRATIONS", CPU_MIGRATIONS),
  SW("migrations", "CPU_MIGRATIONS", CPU_MIGRATIONS),
#endif
  { NULL, NULL, 0, 0 }
};
#undef HW
#undef SW

const char *bpi_event_generic_name(size_t i)
{
  return i < BP_ARRAY_LEN(generic_events) ? generic_events[i].name : NULL;
}

/* Encode a plain generic name as libpfm4 would with the privilege levels
 * user, plus kernel when kernel: the same attr bits and the same fully
 * qualified name.  Returns PFM_ERR_NOTFOUND for any other name (one with a
 * PMU prefix or modifiers included), PFM_ERR_NOMEM, or PFM_SUCCESS. */
static int encode_generic(const char *name, bool kernel,
                          struct perf_event_attr *attr, char **fstr)
{
  const struct generic_event *g;
  if(strchr(name, ':'))
    return PFM_ERR_NOTFOUND;
  for(g = generic_events; g->name; g++) {
    if(!strcasecmp(g->name, name))
      break;
  }
  if(!g->name)
    return PFM_ERR_NOTFOUND;
  memset(attr, 0, sizeof(*attr));
  attr->size = sizeof(*attr);
  attr->type = g->type;
  attr->config = g->config;
  attr->exclude_kernel = !kernel;
  attr->exclude_hv = 1;     /* no hypervisor privilege level asked for */
  attr->exclude_guest = 1;  /* libpfm4's default: host only (mh=1) */
  /* libpfm4 lists the perf PMU's modifiers; hardware ones add h, precise */
  char buf[128];
  int w = snprintf(buf, sizeof(buf), "perf::%s:u=1:k=%d%s:excl=0:mg=0:mh=1",
                   g->pfm_name, kernel ? 1 : 0,
                   g->type == PERF_TYPE_HARDWARE ? ":h=0:precise=0" : "");
  if(w < 0 || (size_t)w >= sizeof(buf))
    return PFM_ERR_NOTFOUND;
  *fstr = strdup(buf);
  return *fstr ? PFM_SUCCESS : PFM_ERR_NOMEM;
}

size_t bpi_events_did_you_mean(const char *name, char *out, size_t cap)
{
  char *sugg[3];
  size_t n = bpi_events_suggest(name, sugg, BP_ARRAY_LEN(sugg));
  size_t len = 0;
  if(cap)
    out[0] = '\0';
  for(size_t i = 0; i < n; i++) {
    int w = cap ? snprintf(out + len, cap - len, "%s%s", i ? ", " : "",
                           sugg[i]) : -1;
    if(w > 0 && (size_t)w < cap - len)
      len += (size_t)w;
    free(sugg[i]);
  }
  return n;
}

static bp_code unknown_event(const char *name, struct bp_err *err)
{
  char list[256];
  if(bpi_events_did_you_mean(name, list, sizeof(list)))
    return bpi_err_set(err, BPE_EVENT_UNKNOWN, 0,
                       "unknown event '%s' (did you mean: %s?)", name, list);
  return bpi_err_set(err, BPE_EVENT_UNKNOWN, 0, "unknown event '%s'", name);
}

/* The modifier names libpfm4 lists for the event base (no modifiers) in
 * its fully qualified name ("...:u=1:k=0:precise=0:excl=0"), comma
 * separated into list; false when base cannot be encoded alone. */
static bool modifier_names(const char *base, char *list, size_t len)
{
  struct perf_event_attr attr;
  char *fstr = NULL;
  size_t used = 0;
  list[0] = '\0';
  if(encode(base, PFM_PLM3, &attr, &fstr) != PFM_SUCCESS || !fstr) {
    free(fstr);
    return false;
  }
  for(char *tok = strchr(event_part(fstr), ':'); tok; ) {
    char *end = strchr(tok + 1, ':');
    char *eq = memchr(tok + 1, '=', end ? (size_t)(end - tok - 1)
                                        : strlen(tok + 1));
    if(eq) {
      int w = snprintf(list + used, len - used, "%s%.*s", used ? ", " : "",
                       (int)(eq - tok - 1), tok + 1);
      if(w > 0 && (size_t)w < len - used)
        used += (size_t)w;
    }
    tok = end;
  }
  free(fstr);
  return used > 0;
}

/* The first modifier of pfm_name (libpfm4 syntax) that libpfm4 refuses:
 * the event with one more modifier at a time.  Its bounds in pfm_name in
 * *tok and *len; false when none alone is at fault. */
static bool first_bad_modifier(const char *pfm_name, const char **tok,
                               size_t *len)
{
  const char *p = strchr(event_part(pfm_name), ':');
  while(p) {
    const char *end = strchr(p + 1, ':');
    size_t upto = end ? (size_t)(end - pfm_name) : strlen(pfm_name);
    char *prefix = strndup(pfm_name, upto);
    struct perf_event_attr attr;
    int ret = prefix ? encode(prefix, PFM_PLM3, &attr, NULL) : PFM_ERR_NOMEM;
    free(prefix);
    if(ret != PFM_SUCCESS && ret != PFM_ERR_NOMEM) {
      *tok = p + 1;
      *len = end ? (size_t)(end - p - 1) : strlen(p + 1);
      return true;
    }
    p = end;
  }
  return false;
}

/* A modifier libpfm4 refused: which one, what the event takes, and the
 * right spelling where it is a value written without '=' ("precise2"). */
static bp_code bad_modifier(const char *name, const char *pfm_name, int ret,
                            struct bp_err *err)
{
  const char *tok;
  size_t len;
  char mods[256], hint[96] = "";
  const char *colon = strchr(event_part(pfm_name), ':');
  char *base = strndup(pfm_name, colon ? (size_t)(colon - pfm_name)
                                       : strlen(pfm_name));
  bool listed = base && modifier_names(base, mods, sizeof(mods));
  free(base);
  if(!first_bad_modifier(pfm_name, &tok, &len))
    return bpi_err_set(err, BPE_INVAL, 0, "event '%s': %s", name,
                       pfm_api.strerror(ret));
  size_t alpha = 0;
  while(alpha < len && isalpha((unsigned char)tok[alpha]))
    alpha++;
  if(alpha && alpha < len && isdigit((unsigned char)tok[alpha]) &&
     strspn(tok + alpha, "0123456789") == len - alpha)
    snprintf(hint, sizeof(hint), " (did you mean '%.*s=%.*s'?)", (int)alpha,
             tok, (int)(len - alpha), tok + alpha);
  if(listed && !strncmp(tok, "precise", 7) && !strstr(mods, "precise"))
    snprintf(hint, sizeof(hint), " (no precise sampling for this event: "
             "drop :p, :pp, :ppp or :P)");
  if(listed)
    return bpi_err_set(err, BPE_INVAL, 0,
                       "event '%s': modifier '%.*s' is not valid for it%s; "
                       "its modifiers: %s (perf's :u :k :h :p :pp :ppp :P "
                       ":G :H :D are translated to these)", name, (int)len,
                       tok, hint, mods);
  return bpi_err_set(err, BPE_INVAL, 0,
                     "event '%s': modifier '%.*s' is not valid for it%s (%s)",
                     name, (int)len, tok, hint, pfm_api.strerror(ret));
}

static bp_code encode_error(const char *name, const char *pfm_name, int ret,
                            struct bp_err *err)
{
  switch(ret) {
  case PFM_ERR_NOTFOUND:
  case PFM_ERR_NOTSUPP:
    return unknown_event(name, err);
  case PFM_ERR_ATTR:
  case PFM_ERR_ATTR_VAL:
  case PFM_ERR_ATTR_SET:
    return bad_modifier(name, pfm_name, ret, err);
  case PFM_ERR_NOMEM:
    return bpi_err_set(err, BPE_NOMEM, 0, "event '%s': %s", name,
                       pfm_api.strerror(ret));
  default:
    return bpi_err_set(err, BPE_INVAL, 0, "event '%s': %s", name,
                       pfm_api.strerror(ret));
  }
}

/* bpi_event_parse(), with the generic table or (builtin false) always
 * through libpfm4. */
static bp_code parse(const char *name, bool kernel, bool builtin,
                     struct bp_event *ev, struct bp_err *err)
{
  memset(ev, 0, sizeof(*ev));
  if(!name || !*name)
    return bpi_err_set(err, BPE_INVAL, 0, "empty event name");
  if(strchr(name, ','))
    return bpi_err_set(err, BPE_INVAL, 0,
                       "event '%s': give one event at a time, not a list",
                       name);

  char *fstr = NULL, *pfm_name = NULL;
  bool precise_max = false;
  int ret = builtin ? encode_generic(name, kernel, &ev->attr, &fstr)
                    : PFM_ERR_NOTFOUND;
  if(ret == PFM_ERR_NOTFOUND) {
    bp_code rc = bpi_event_translate(name, &pfm_name, &precise_max, err);
    if(!rc)
      rc = pfm_ready(err);
    if(rc) {
      free(pfm_name);
      return rc;
    }
    int plm = kernel ? (PFM_PLM0 | PFM_PLM3) : PFM_PLM3;
    ret = encode(pfm_name, plm, &ev->attr, &fstr);
  }
  if(ret != PFM_SUCCESS) {
    bp_code rc = ret == PFM_ERR_NOMEM
                   ? bpi_err_set(err, BPE_NOMEM, 0, "event '%s'", name)
                   : encode_error(name, pfm_name, ret, err);
    free(fstr);
    free(pfm_name);
    memset(ev, 0, sizeof(*ev));
    return rc;
  }
  bool own_plm = pfm_name && has_plm_modifier(pfm_name);
  free(pfm_name);
  ev->precise_max = precise_max;
  if(!kernel && !own_plm) {
    ev->attr.exclude_kernel = 1;
    ev->attr.exclude_hv = 1;
  }
  ev->name = strdup(name);
  ev->fqname = fstr;
  ev->is_time = is_time_attr(&ev->attr);
  if(!ev->name || !ev->fqname) {
    bpi_event_cleanup(ev);
    return bpi_err_set(err, BPE_NOMEM, 0, "event '%s'", name);
  }
  return BP_OK;
}

bp_code bpi_event_parse(const char *name, bool kernel, struct bp_event *ev,
                        struct bp_err *err)
{
  return parse(name, kernel, true, ev, err);
}

bp_code bpi_event_parse_pfm(const char *name, bool kernel,
                            struct bp_event *ev, struct bp_err *err)
{
  return parse(name, kernel, false, ev, err);
}

void bpi_event_cleanup(struct bp_event *ev)
{
  if(!ev)
    return;
  free(ev->name);
  free(ev->fqname);
  memset(ev, 0, sizeof(*ev));
}

bp_code bpi_event_software_clock(const struct bp_event *like,
                                 struct bp_event *ev, struct bp_err *err)
{
  static const char clock_name[] = "cpu-clock";
  memset(ev, 0, sizeof(*ev));

  char *fstr = NULL;
  int ret = encode_generic(clock_name, false, &ev->attr, &fstr);
  if(ret == PFM_ERR_NOTFOUND) {  /* no generic table here */
    bp_code rc = pfm_ready(err);
    if(rc)
      return rc;
    ret = encode("perf::cpu-clock", PFM_PLM3, &ev->attr, &fstr);
  }
  if(ret == PFM_ERR_NOMEM) {
    free(fstr);
    memset(ev, 0, sizeof(*ev));
    return bpi_err_set(err, BPE_NOMEM, 0, "event '%s'", clock_name);
  }
  if(ret != PFM_SUCCESS || !is_time_attr(&ev->attr)) {
    free(fstr);
    memset(ev, 0, sizeof(*ev));
    return bpi_err_set(err, BPE_LIBPFM, 0, "event 'perf::cpu-clock': %s",
                       ret != PFM_SUCCESS ? pfm_api.strerror(ret) :
                       "not the software clock");
  }
  if(like) {
    ev->attr.exclude_user = like->attr.exclude_user;
    ev->attr.exclude_kernel = like->attr.exclude_kernel;
    ev->attr.exclude_hv = like->attr.exclude_hv;
    ev->attr.exclude_idle = like->attr.exclude_idle;
    ev->attr.exclude_host = like->attr.exclude_host;
    ev->attr.exclude_guest = like->attr.exclude_guest;
    ev->attr.exclude_callchain_kernel = like->attr.exclude_callchain_kernel;
    ev->attr.exclude_callchain_user = like->attr.exclude_callchain_user;
  }
  else {
    ev->attr.exclude_kernel = 1;
    ev->attr.exclude_hv = 1;
  }
  ev->name = strdup(clock_name);
  ev->fqname = fstr;
  ev->is_time = true;
  if(!ev->name || !ev->fqname) {
    bpi_event_cleanup(ev);
    return bpi_err_set(err, BPE_NOMEM, 0, "event '%s'", clock_name);
  }
  return BP_OK;
}

/* ------------------------------------------------------------ probing */

bool bpi_event_errno_no_pmu(int err)
{
  switch(err) {
  case ENOENT:
  case ENODEV:
  case ENXIO:
  case EOPNOTSUPP:
    return true;
  default:
    return false;
  }
}

bool bpi_event_errno_precise(int err)
{
  return err == EOPNOTSUPP || err == EINVAL || err == ENOENT;
}

const char *bpi_event_errno_advice(int err)
{
  switch(err) {
  case EBUSY:
    return "the PMU's counters are in use by another program (a profiler, "
           "the NMI watchdog); stop it";
  case EMFILE:
  case ENFILE:
    return "too many open files; raise the limit (ulimit -n) or ask for "
           "fewer events";
  case EACCES:
  case EPERM:
    return "not permitted; see /proc/sys/kernel/perf_event_paranoid, or "
           "add :u for user space only";
  case EINVAL:
    return "the kernel refused the attributes (an event code this CPU "
           "lacks, a modifier it does not take, or too large a group)";
  case ENOSPC:
    return "no counter left on the PMU for this event";
  default:
    return NULL;
  }
}

int bpi_event_probe(const struct perf_event_attr *attr)
{
  struct perf_event_attr a = *attr;
  a.size = sizeof(a);
  /* counting, user space only, nothing recorded */
  a.disabled = 1;
  a.exclude_user = 0;
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  a.sample_period = 0;
  a.freq = 0;
  a.sample_type = 0;
  a.read_format = 0;
  a.branch_sample_type = 0;
  a.sample_regs_user = 0;
  a.sample_stack_user = 0;
  a.sample_max_stack = 0;
  a.inherit = 0;
  a.enable_on_exec = 0;
  a.watermark = 0;
  a.wakeup_events = 0;
  a.mmap = 0;
  a.mmap2 = 0;
  a.mmap_data = 0;
  a.comm = 0;
  a.comm_exec = 0;
  a.task = 0;
  a.sample_id_all = 0;
  long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1,
                    PERF_FLAG_FD_CLOEXEC);
  if(fd < 0)
    return errno ? errno : EINVAL;
  close((int)fd);
  return 0;
}

/* ------------------------------------------------------------ suggestions */

static bool contains_nocase(const char *hay, const char *needle)
{
  size_t n = strlen(needle);
  for(; *hay; hay++) {
    if(!strncasecmp(hay, needle, n))
      return true;
  }
  return n == 0;
}

struct suggest {
  const char *query;  /* event part of the name, without modifiers */
  size_t qlen;
  char **out;
  size_t *score;
  size_t max;
  size_t n;
};

/* Score candidate (the event part of a name) against the query; SIZE_MAX
 * when it is not close.  Close: a small edit distance, or one name a
 * prefix or substring of the other. */
static size_t score_candidate(const struct suggest *s, const char *cand)
{
  size_t clen = strlen(cand);
  if(clen > NAME_MAX_CMP)
    return SIZE_MAX;
  size_t d = bpi_text_edit_distance(s->query, s->qlen, cand, clen, true);
  size_t limit = s->qlen / 3 > 2 ? s->qlen / 3 : 2;
  if(d <= limit && d < clen)
    return d;
  if(s->qlen >= 3 && contains_nocase(cand, s->query))
    return d;
  if(clen >= 3 && !strncasecmp(s->query, cand, clen))
    return d;
  return SIZE_MAX;
}

/* Keep display in the sorted best-of list (deduplicated). */
static void suggest_add(struct suggest *s, const char *display, size_t score)
{
  size_t i;
  for(i = 0; i < s->n; i++) {
    if(!strcasecmp(s->out[i], display))
      return;
  }
  for(i = 0; i < s->n; i++) {
    if(score < s->score[i] ||
       (score == s->score[i] && strlen(display) < strlen(s->out[i])))
      break;
  }
  if(i >= s->max)
    return;
  char *copy = strdup(display);
  if(!copy)
    return;
  if(s->n == s->max) {
    free(s->out[s->n - 1]);
    s->n--;
  }
  memmove(&s->out[i + 1], &s->out[i], (s->n - i) * sizeof(s->out[0]));
  memmove(&s->score[i + 1], &s->score[i], (s->n - i) * sizeof(s->score[0]));
  s->out[i] = copy;
  s->score[i] = score;
  s->n++;
}

/* One event of one PMU.  Generic perf aliases are shown in their short,
 * lowercase form ("branch-misses"), the PERF_COUNT_* names as they are;
 * events of other PMUs as "pmu::EVENT". */
static void suggest_event(struct suggest *s, const pfm_pmu_info_t *pinfo,
                          const char *ev)
{
  char display[FULLNAME_LEN];
  size_t score = score_candidate(s, ev);
  if(score == SIZE_MAX)
    return;
  if(pinfo->pmu == PFM_PMU_PERF_EVENT && !strchr(ev, '_')) {
    size_t i;
    for(i = 0; ev[i] && i < sizeof(display) - 1; i++)
      display[i] = (char)tolower((unsigned char)ev[i]);
    display[i] = '\0';
  }
  else if(pinfo->pmu == PFM_PMU_PERF_EVENT)
    snprintf(display, sizeof(display), "%s", ev);
  else
    snprintf(display, sizeof(display), "%s::%s", pinfo->name, ev);
  suggest_add(s, display, score);
}

static void suggest_pmu(struct suggest *s, pfm_pmu_t pmu)
{
  pfm_pmu_info_t pinfo;
  memset(&pinfo, 0, sizeof(pinfo));
  pinfo.size = sizeof(pinfo);
  if(pfm_api.get_pmu_info(pmu, &pinfo) != PFM_SUCCESS || !pinfo.is_present)
    return;
  if(pmu == PFM_PMU_PERF_EVENT_RAW)
    return;  /* "r0000" is syntax, not a name */
  for(int i = pinfo.first_event; i != -1; i = pfm_api.get_event_next(i)) {
    pfm_event_info_t einfo;
    memset(&einfo, 0, sizeof(einfo));
    einfo.size = sizeof(einfo);
    if(pfm_api.get_event_info(i, PFM_OS_NONE, &einfo) == PFM_SUCCESS &&
       einfo.name)
      suggest_event(s, &pinfo, einfo.name);
  }
}

size_t bpi_events_suggest(const char *name, char **out, size_t max)
{
  char query[NAME_MAX_CMP + 1];
  size_t score[8];
  struct suggest s;
  if(!name || !out || !max || pfm_ready(NULL) != BP_OK)
    return 0;
  if(max > BP_ARRAY_LEN(score))
    max = BP_ARRAY_LEN(score);
  /* compare the event part only: no PMU prefix, no modifiers */
  const char *ev = event_part(name);
  size_t qlen = strcspn(ev, ":");
  if(!qlen || qlen > NAME_MAX_CMP)
    return 0;
  memcpy(query, ev, qlen);
  query[qlen] = '\0';

  memset(&s, 0, sizeof(s));
  s.query = query;
  s.qlen = qlen;
  s.out = out;
  s.score = score;
  s.max = max;
  pfm_pmu_t pmu;
  pfm_for_all_pmus(pmu) {
    suggest_pmu(&s, pmu);
  }
  return s.n;
}

/* ------------------------------------------------------------ listing */

struct list_ctx {
  const char *pattern;
  bool probe;
  int (*cb)(const struct bp_event_info *, void *);
  void *ctx;
};

/* Trial-open one listed event; -1 when libpfm cannot encode it on its own
 * (an event that needs a unit mask). */
static int probe_name(const char *fullname)
{
  struct perf_event_attr attr;
  int ret = encode(fullname, PFM_PLM3, &attr, NULL);
  if(ret != PFM_SUCCESS)
    return -1;
  return bpi_event_probe(&attr);
}

/* Report the events of one PMU; returns non-zero when cb asked to stop. */
static int list_pmu(const struct list_ctx *lc, pfm_pmu_t pmu)
{
  pfm_pmu_info_t pinfo;
  memset(&pinfo, 0, sizeof(pinfo));
  pinfo.size = sizeof(pinfo);
  if(pfm_api.get_pmu_info(pmu, &pinfo) != PFM_SUCCESS || !pinfo.is_present)
    return 0;
  for(int i = pinfo.first_event; i != -1; i = pfm_api.get_event_next(i)) {
    char fullname[FULLNAME_LEN];
    pfm_event_info_t einfo;
    struct bp_event_info info;
    memset(&einfo, 0, sizeof(einfo));
    einfo.size = sizeof(einfo);
    if(pfm_api.get_event_info(i, PFM_OS_NONE, &einfo) != PFM_SUCCESS ||
       !einfo.name)
      continue;
    int w = snprintf(fullname, sizeof(fullname), "%s::%s", pinfo.name,
                     einfo.name);
    if(w < 0 || (size_t)w >= sizeof(fullname))
      continue;
    if(lc->pattern && *lc->pattern && !contains_nocase(fullname, lc->pattern))
      continue;
    info.name = fullname;
    info.desc = einfo.desc ? einfo.desc : "";
    info.is_generic = (pmu == PFM_PMU_PERF_EVENT);
    info.open_errno = lc->probe ? probe_name(fullname) : -1;
    if(lc->cb(&info, lc->ctx))
      return 1;
  }
  return 0;
}

bp_code bpi_events_list(const char *pattern, bool probe,
                        int (*cb)(const struct bp_event_info *, void *),
                        void *ctx, struct bp_err *err)
{
  struct list_ctx lc;
  bp_code rc;
  if(!cb)
    return bpi_err_set(err, BPE_INVAL, 0, "events list: no callback");
  rc = pfm_ready(err);
  if(rc)
    return rc;
  lc.pattern = pattern;
  lc.probe = probe;
  lc.cb = cb;
  lc.ctx = ctx;
  pfm_pmu_t pmu;
  pfm_for_all_pmus(pmu) {
    if(list_pmu(&lc, pmu))
      break;
  }
  return BP_OK;
}

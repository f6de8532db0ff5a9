/* Unit test of plugin/lib/events.c: encoding, suggestions, the no-PMU errno
 * table, the software-clock fallback, probing and listing.  The encoding
 * checks need only libpfm4; the probing checks need perf_event_open and
 * make the test exit 77 (skip) when the kernel refuses even the software
 * clock (seccomp, perf_event_paranoid 3).
 *
 * perf's plain generic names are encoded from a built-in table without
 * loading libpfm4: first that libpfm4 stays unloaded while they are parsed,
 * then that each gives exactly what libpfm4 gives for it. */
#include "bp_setup.h"
#include "events.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "check.h"
#include "err.h"

#ifndef PFM_SONAME
#define PFM_SONAME "libpfm.so.4"
#endif

static bool pfm_loaded(void)
{
  void *h = dlopen(PFM_SONAME, RTLD_NOW | RTLD_NOLOAD);
  if(h)
    dlclose(h);
  return h != NULL;
}

/* Runs first: what record and run ask for by default (and the software
 * clock they fall back to) does not load libpfm4. */
static void test_generic_without_pfm(void)
{
  static const char *const defaults[] = {
    "cycles", "instructions", "branches", "branch-misses",
    "cache-references", "cache-misses", "task-clock", "page-faults"
  };
  struct bp_event ev, sw;
  struct bp_err err = {0};

#if defined(__x86_64__) || defined(__i386__)
  CHECK(bpi_event_generic_name(0) != NULL);  /* the table is used here */
#endif
  if(!bpi_event_generic_name(0)) {
    printf("no built-in generic names on this architecture\n");
    return;
  }
  CHECK(!pfm_loaded());
  for(size_t i = 0; i < BP_ARRAY_LEN(defaults); i++) {
    for(int kernel = 0; kernel < 2; kernel++) {
      CHECK_EQ_INT(bpi_event_parse(defaults[i], kernel, &ev, &err), BP_OK);
      CHECK_EQ_INT(bpi_event_software_clock(&ev, &sw, &err), BP_OK);
      bpi_event_cleanup(&sw);
      bpi_event_cleanup(&ev);
    }
  }
  CHECK_EQ_INT(bpi_event_software_clock(NULL, &sw, &err), BP_OK);
  bpi_event_cleanup(&sw);
  CHECK_EQ_INT(err.code, BP_OK);
  CHECK(!pfm_loaded());

  /* a modifier needs libpfm4 */
  CHECK_EQ_INT(bpi_event_parse("cycles:u", false, &ev, &err), BP_OK);
  bpi_event_cleanup(&ev);
  CHECK(pfm_loaded());
}

/* name through the table and through libpfm4: the same attr (every byte),
 * name, fully qualified name and is_time */
static void check_same_as_pfm(const char *name, bool kernel)
{
  struct bp_event a, b;
  struct bp_err err = {0};
  CHECK_EQ_INT(bpi_event_parse(name, kernel, &a, &err), BP_OK);
  CHECK_EQ_INT(bpi_event_parse_pfm(name, kernel, &b, &err), BP_OK);
  if(err.code) {
    fprintf(stderr, "'%s' (kernel %d): %s\n", name, kernel, err.msg);
    return;
  }
  if(memcmp(&a.attr, &b.attr, sizeof(a.attr))) {
    fprintf(stderr, "'%s' (kernel %d): attrs differ: type %u/%u config "
            "%llu/%llu exclude_kernel %d/%d hv %d/%d guest %d/%d\n", name,
            kernel, a.attr.type, b.attr.type,
            (unsigned long long)a.attr.config,
            (unsigned long long)b.attr.config, (int)a.attr.exclude_kernel,
            (int)b.attr.exclude_kernel, (int)a.attr.exclude_hv,
            (int)b.attr.exclude_hv, (int)a.attr.exclude_guest,
            (int)b.attr.exclude_guest);
    CHECK(!"attrs differ");
  }
  CHECK_EQ_STR(a.name, b.name);
  CHECK_EQ_STR(a.fqname, b.fqname);
  CHECK_EQ_INT(a.is_time, b.is_time);
  bpi_event_cleanup(&a);
  bpi_event_cleanup(&b);
}

static void test_generic_same_as_pfm(void)
{
  const char *name;
  size_t n = 0;
  for(size_t i = 0; (name = bpi_event_generic_name(i)) != NULL; i++) {
    char upper[64];
    size_t j;
    for(j = 0; name[j] && j < sizeof(upper) - 1; j++)
      upper[j] = (char)toupper((unsigned char)name[j]);
    upper[j] = '\0';
    for(int kernel = 0; kernel < 2; kernel++) {
      check_same_as_pfm(name, kernel);
      check_same_as_pfm(upper, kernel);  /* libpfm4 ignores case too */
    }
    n++;
  }
  printf("%zu built-in generic names checked against libpfm4\n", n);

  /* the software clock of the fallback: as libpfm4's perf::cpu-clock
   * (user only; with kernel the attr of the kernel variant) */
  struct bp_event sw, pfm, like;
  struct bp_err err = {0};
  CHECK_EQ_INT(bpi_event_software_clock(NULL, &sw, &err), BP_OK);
  CHECK_EQ_INT(bpi_event_parse_pfm("perf::cpu-clock", false, &pfm, &err),
               BP_OK);
  CHECK(!memcmp(&sw.attr, &pfm.attr, sizeof(sw.attr)));
  CHECK_EQ_STR(sw.fqname, pfm.fqname);
  CHECK_EQ_STR(sw.name, "cpu-clock");
  CHECK(sw.is_time && pfm.is_time);
  bpi_event_cleanup(&sw);
  bpi_event_cleanup(&pfm);

  CHECK_EQ_INT(bpi_event_parse_pfm("cycles", true, &like, &err), BP_OK);
  CHECK_EQ_INT(bpi_event_software_clock(&like, &sw, &err), BP_OK);
  CHECK_EQ_INT(bpi_event_parse_pfm("perf::cpu-clock", true, &pfm, &err),
               BP_OK);
  CHECK(!memcmp(&sw.attr, &pfm.attr, sizeof(sw.attr)));
  bpi_event_cleanup(&sw);
  bpi_event_cleanup(&pfm);
  bpi_event_cleanup(&like);

  /* names the table does not take go to libpfm4 unchanged */
  check_same_as_pfm("perf::cycles", false);
  check_same_as_pfm("cycles:u", true);
  check_same_as_pfm("r00c0", false);
  CHECK_EQ_INT(err.code, BP_OK);
}

static void test_parse_ok(const char *name, bool kernel, uint32_t type,
                          uint64_t config, int line)
{
  struct bp_event ev;
  struct bp_err err = {0};
  bp_code rc = bpi_event_parse(name, kernel, &ev, &err);
  if(rc) {
    fprintf(stderr, "line %d: parsing '%s' failed: %s\n", line, name,
            err.msg);
  }
  CHECK_EQ_INT(rc, BP_OK);
  CHECK_EQ_INT(ev.attr.type, type);
  CHECK_EQ_INT(ev.attr.config, config);
  CHECK_EQ_INT(ev.attr.size, sizeof(struct perf_event_attr));
  CHECK_EQ_STR(ev.name, name);
  CHECK(ev.fqname && ev.fqname[0]);
  CHECK_EQ_INT(ev.attr.exclude_user, 0);
  CHECK_EQ_INT(ev.attr.exclude_kernel, kernel ? 0 : 1);
  CHECK_EQ_INT(ev.attr.exclude_hv, 1);
  /* sampling settings are the sampler's business */
  CHECK_EQ_INT(ev.attr.sample_period, 0);
  CHECK_EQ_INT(ev.attr.freq, 0);
  CHECK_EQ_INT(ev.attr.sample_type, 0);
  bpi_event_cleanup(&ev);
  CHECK(ev.name == NULL);
  CHECK(ev.fqname == NULL);
}

static void test_parse(void)
{
  struct bp_event ev;
  struct bp_err err = {0};

  test_parse_ok("cycles", false, PERF_TYPE_HARDWARE,
                PERF_COUNT_HW_CPU_CYCLES, __LINE__);
  test_parse_ok("cycles:u", false, PERF_TYPE_HARDWARE,
                PERF_COUNT_HW_CPU_CYCLES, __LINE__);
  test_parse_ok("instructions", false, PERF_TYPE_HARDWARE,
                PERF_COUNT_HW_INSTRUCTIONS, __LINE__);
  test_parse_ok("branch-misses", false, PERF_TYPE_HARDWARE,
                PERF_COUNT_HW_BRANCH_MISSES, __LINE__);
  test_parse_ok("perf::cpu-clock", false, PERF_TYPE_SOFTWARE,
                PERF_COUNT_SW_CPU_CLOCK, __LINE__);
  test_parse_ok("r00c0", false, PERF_TYPE_RAW, 0xc0, __LINE__);
  test_parse_ok("cycles", true, PERF_TYPE_HARDWARE,
                PERF_COUNT_HW_CPU_CYCLES, __LINE__);

  /* is_time only for the software clocks */
  CHECK_EQ_INT(bpi_event_parse("cycles", false, &ev, &err), BP_OK);
  CHECK(!ev.is_time);
  CHECK(strstr(ev.fqname, "CYCLES") != NULL);
  bpi_event_cleanup(&ev);
  CHECK_EQ_INT(bpi_event_parse("perf::cpu-clock", false, &ev, &err), BP_OK);
  CHECK(ev.is_time);
  bpi_event_cleanup(&ev);
  CHECK_EQ_INT(bpi_event_parse("task-clock", false, &ev, &err), BP_OK);
  CHECK(ev.is_time);
  CHECK_EQ_INT(ev.attr.config, PERF_COUNT_SW_TASK_CLOCK);
  bpi_event_cleanup(&ev);
  CHECK_EQ_INT(bpi_event_parse("page-faults", false, &ev, &err), BP_OK);
  CHECK(!ev.is_time);
  bpi_event_cleanup(&ev);

  /* an explicit privilege modifier wins over the kernel flag */
  CHECK_EQ_INT(bpi_event_parse("cycles:u", true, &ev, &err), BP_OK);
  CHECK_EQ_INT(ev.attr.exclude_kernel, 1);
  CHECK_EQ_INT(ev.attr.exclude_user, 0);
  bpi_event_cleanup(&ev);
  CHECK_EQ_INT(bpi_event_parse("cycles:k", false, &ev, &err), BP_OK);
  CHECK_EQ_INT(ev.attr.exclude_kernel, 0);
  CHECK_EQ_INT(ev.attr.exclude_user, 1);
  bpi_event_cleanup(&ev);
  CHECK_EQ_INT(err.code, BP_OK);

  /* cleanup of a zeroed or NULL event is harmless */
  bpi_event_cleanup(&ev);
  bpi_event_cleanup(NULL);
}

static void test_parse_errors(void)
{
  struct bp_event ev;
  struct bp_err err = {0};

  CHECK_EQ_INT(bpi_event_parse("cyclez", false, &ev, &err),
               BPE_EVENT_UNKNOWN);
  CHECK_EQ_INT(err.code, BPE_EVENT_UNKNOWN);
  CHECK(strstr(err.msg, "'cyclez'") != NULL);
  CHECK(strstr(err.msg, "did you mean") != NULL);
  CHECK(strstr(err.msg, "cycles") != NULL);
  CHECK(ev.name == NULL && ev.fqname == NULL);
  bpi_event_cleanup(&ev);

  bpi_err_clear(&err);
  CHECK_EQ_INT(bpi_event_parse("brnch-misses", false, &ev, &err),
               BPE_EVENT_UNKNOWN);
  CHECK(strstr(err.msg, "branch-misses") != NULL);

  bpi_err_clear(&err);
  CHECK_EQ_INT(bpi_event_parse("cycles,instructions", false, &ev, &err),
               BPE_INVAL);
  CHECK(strstr(err.msg, "one event at a time") != NULL);

  bpi_err_clear(&err);
  CHECK_EQ_INT(bpi_event_parse("", false, &ev, &err), BPE_INVAL);
  bpi_err_clear(&err);
  CHECK_EQ_INT(bpi_event_parse(NULL, false, &ev, &err), BPE_INVAL);

  /* a bad modifier is not an unknown event */
  bpi_err_clear(&err);
  CHECK_EQ_INT(bpi_event_parse("cycles:zz", false, &ev, &err), BPE_INVAL);
  CHECK(strstr(err.msg, "cycles:zz") != NULL);

  /* nothing close at all: no suggestion, still a clear message */
  bpi_err_clear(&err);
  CHECK_EQ_INT(bpi_event_parse("qqqqqqqqqqqqqqqqqqqqqqqqqqqqqq", false, &ev,
                               &err), BPE_EVENT_UNKNOWN);
  CHECK(strstr(err.msg, "did you mean") == NULL);

  /* a NULL error record is allowed */
  CHECK_EQ_INT(bpi_event_parse("cyclez", false, &ev, NULL),
               BPE_EVENT_UNKNOWN);
}

/* perf's modifiers -> libpfm4's (bpi_event_translate) */
static void check_translate(const char *perf, const char *pfm, bool max,
                            int line)
{
  char *out = NULL;
  bool got_max = !max;
  struct bp_err err = {0};
  bp_code rc = bpi_event_translate(perf, &out, &got_max, &err);
  if(rc != BP_OK || !out || strcmp(out, pfm) || got_max != max)
    fprintf(stderr, "line %d: '%s' -> '%s' (max %d), expected '%s' (%d): "
            "%s\n", line, perf, out ? out : "(null)", got_max, pfm, max,
            err.msg);
  CHECK_EQ_INT(rc, BP_OK);
  CHECK_EQ_STR(out, pfm);
  CHECK(got_max == max);
  free(out);
}

static void check_untranslatable(const char *perf, const char *says,
                                 int line)
{
  char *out = NULL;
  struct bp_err err = {0};
  bp_code rc = bpi_event_translate(perf, &out, NULL, &err);
  if(rc != BPE_INVAL || !strstr(err.msg, says))
    fprintf(stderr, "line %d: '%s': %d '%s', expected BPE_INVAL with "
            "'%s'\n", line, perf, rc, err.msg, says);
  CHECK_EQ_INT(rc, BPE_INVAL);
  CHECK(strstr(err.msg, says) != NULL);
  CHECK(strstr(err.msg, perf) != NULL);  /* the event is named */
  CHECK(out == NULL);
}

static void test_perf_modifiers(void)
{
  check_translate("cycles", "cycles", false, __LINE__);
  check_translate("cycles:u", "cycles:u", false, __LINE__);
  check_translate("cycles:k", "cycles:k", false, __LINE__);
  check_translate("cycles:p", "cycles:precise=1", false, __LINE__);
  check_translate("cycles:pp", "cycles:precise=2", false, __LINE__);
  check_translate("cycles:ppp", "cycles:precise=3", false, __LINE__);
  check_translate("cycles:P", "cycles:precise=3", true, __LINE__);
  check_translate("cycles:upp", "cycles:u:precise=2", false, __LINE__);
  check_translate("cycles:ukp", "cycles:u:k:precise=1", false, __LINE__);
  check_translate("cycles:G", "cycles:mg=1:mh=0", false, __LINE__);
  check_translate("cycles:H", "cycles:mg=0:mh=1", false, __LINE__);
  check_translate("cycles:D", "cycles:pinned", false, __LINE__);
  /* libpfm4's own syntax and unit masks pass through untouched */
  check_translate("cycles:u:precise=2", "cycles:u:precise=2", false,
                  __LINE__);
  check_translate("INST_RETIRED:ANY_P:pp", "INST_RETIRED:ANY_P:precise=2",
                  false, __LINE__);
  check_translate("icl::MEM_LOAD_RETIRED:L3_MISS:u",
                  "icl::MEM_LOAD_RETIRED:L3_MISS:u", false, __LINE__);
  check_translate("perf::cycles:pp", "perf::cycles:precise=2", false,
                  __LINE__);
  check_translate("r00c0:ppp", "r00c0:precise=3", false, __LINE__);
  check_translate("BR_INST_RETIRED:e:c=1", "BR_INST_RETIRED:e:c=1", false,
                  __LINE__);

  check_untranslatable("cycles:pppp", "at most three p", __LINE__);
  check_untranslatable("cycles:Ppp", "at most three p", __LINE__);
  check_untranslatable("cycles:S", "count events with --counters", __LINE__);
  check_untranslatable("cycles:uW", "weak group", __LINE__);
  check_untranslatable("cycles:ue", "':excl'", __LINE__);

  /* through parsing: the attributes perf would set */
  struct bp_event ev;
  struct bp_err err = {0};
  CHECK_EQ_INT(bpi_event_parse("cycles:pp", false, &ev, &err), BP_OK);
  CHECK_EQ_INT(ev.attr.type, PERF_TYPE_HARDWARE);
  CHECK_EQ_INT(ev.attr.precise_ip, 2);
  CHECK_EQ_INT(ev.attr.exclude_kernel, 1);  /* user only by default */
  CHECK(!ev.precise_max);
  CHECK_EQ_STR(ev.name, "cycles:pp");  /* named as the user wrote it */
  bpi_event_cleanup(&ev);
  CHECK_EQ_INT(bpi_event_parse("cycles:kP", true, &ev, &err), BP_OK);
  CHECK_EQ_INT(ev.attr.precise_ip, 3);
  CHECK_EQ_INT(ev.attr.exclude_user, 1);   /* :k: the kernel only */
  CHECK_EQ_INT(ev.attr.exclude_kernel, 0);
  CHECK(ev.precise_max);
  bpi_event_cleanup(&ev);
  CHECK_EQ_INT(bpi_event_parse("instructions:upp", true, &ev, &err), BP_OK);
  CHECK_EQ_INT(ev.attr.precise_ip, 2);
  CHECK_EQ_INT(ev.attr.exclude_kernel, 1);  /* :u wins over kernel */
  CHECK_EQ_INT(ev.attr.exclude_user, 0);
  bpi_event_cleanup(&ev);
  CHECK_EQ_INT(err.code, BP_OK);

  /* a modifier written without its '=': the right spelling */
  CHECK_EQ_INT(bpi_event_parse("cycles:precise2", false, &ev, &err),
               BPE_INVAL);
  CHECK(strstr(err.msg, "did you mean 'precise=2'") != NULL);
  CHECK(strstr(err.msg, "its modifiers: u, k, h, precise") != NULL);
  bpi_err_clear(&err);
  CHECK_EQ_INT(bpi_event_parse("cycles:u:zz", false, &ev, &err), BPE_INVAL);
  CHECK(strstr(err.msg, "modifier 'zz'") != NULL);
  bpi_err_clear(&err);
}

static void test_suggest(void)
{
  char *out[3];
  size_t n = bpi_events_suggest("cyclez", out, 3);
  CHECK(n >= 1 && n <= 3);
  if(n >= 1)
    CHECK_EQ_STR(out[0], "cycles");
  for(size_t i = 0; i < n; i++)
    free(out[i]);

  /* prefix and PMU-qualified queries */
  n = bpi_events_suggest("perf::instruction:u", out, 3);
  CHECK(n >= 1);
  if(n >= 1)
    CHECK_EQ_STR(out[0], "instructions");
  for(size_t i = 0; i < n; i++)
    free(out[i]);

  /* at most max, never duplicates */
  n = bpi_events_suggest("cycles", out, 2);
  CHECK(n <= 2);
  if(n == 2)
    CHECK(strcmp(out[0], out[1]) != 0);
  for(size_t i = 0; i < n; i++)
    free(out[i]);

  CHECK_EQ_INT(bpi_events_suggest("", out, 3), 0);
  CHECK_EQ_INT(bpi_events_suggest("cycles", out, 0), 0);
}

static void test_errno_table(void)
{
  CHECK(bpi_event_errno_no_pmu(ENOENT));
  CHECK(bpi_event_errno_no_pmu(ENODEV));
  CHECK(bpi_event_errno_no_pmu(ENXIO));
  CHECK(bpi_event_errno_no_pmu(EOPNOTSUPP));
  CHECK(!bpi_event_errno_no_pmu(0));
  CHECK(!bpi_event_errno_no_pmu(EACCES));
  CHECK(!bpi_event_errno_no_pmu(EPERM));
  CHECK(!bpi_event_errno_no_pmu(EINVAL));
  CHECK(!bpi_event_errno_no_pmu(EBUSY));
}

static void test_software_clock(void)
{
  struct bp_event hw, sw;
  struct bp_err err = {0};

  CHECK_EQ_INT(bpi_event_parse("cycles", false, &hw, &err), BP_OK);
  CHECK_EQ_INT(bpi_event_software_clock(&hw, &sw, &err), BP_OK);
  CHECK_EQ_INT(sw.attr.type, PERF_TYPE_SOFTWARE);
  CHECK_EQ_INT(sw.attr.config, PERF_COUNT_SW_CPU_CLOCK);
  CHECK_EQ_INT(sw.attr.size, sizeof(struct perf_event_attr));
  CHECK_EQ_STR(sw.name, "cpu-clock");
  CHECK(sw.fqname && strstr(sw.fqname, "CPU_CLOCK") != NULL);
  CHECK(sw.is_time);
  CHECK_EQ_INT(sw.attr.exclude_user, hw.attr.exclude_user);
  CHECK_EQ_INT(sw.attr.exclude_kernel, 1);
  CHECK_EQ_INT(sw.attr.exclude_hv, hw.attr.exclude_hv);
  CHECK_EQ_INT(sw.attr.exclude_guest, hw.attr.exclude_guest);
  bpi_event_cleanup(&sw);
  bpi_event_cleanup(&hw);

  /* kernel counting carries over */
  CHECK_EQ_INT(bpi_event_parse("instructions", true, &hw, &err), BP_OK);
  CHECK_EQ_INT(bpi_event_software_clock(&hw, &sw, &err), BP_OK);
  CHECK_EQ_INT(sw.attr.exclude_kernel, 0);
  bpi_event_cleanup(&sw);
  bpi_event_cleanup(&hw);

  /* no model: user space only */
  CHECK_EQ_INT(bpi_event_software_clock(NULL, &sw, &err), BP_OK);
  CHECK_EQ_INT(sw.attr.exclude_kernel, 1);
  CHECK(sw.is_time);
  bpi_event_cleanup(&sw);
  CHECK_EQ_INT(err.code, BP_OK);
}

/* Returns false when perf_event_open is not usable at all here. */
static bool test_probe(void)
{
  struct bp_event ev;
  struct bp_err err = {0};

  CHECK_EQ_INT(bpi_event_parse("perf::cpu-clock", false, &ev, &err), BP_OK);
  int e = bpi_event_probe(&ev.attr);
  bpi_event_cleanup(&ev);
  if(e == EACCES || e == EPERM || e == ENOSYS) {
    printf("SKIP: perf_event_open refused the software clock: %s\n",
           strerror(e));
    return false;
  }
  CHECK_EQ_INT(e, 0);

  /* with a sampling setup the probe still counts only */
  CHECK_EQ_INT(bpi_event_parse("cpu-clock", true, &ev, &err), BP_OK);
  ev.attr.freq = 1;
  ev.attr.sample_freq = 997;
  ev.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN;
  CHECK_EQ_INT(bpi_event_probe(&ev.attr), 0);
  bpi_event_cleanup(&ev);

  /* hardware: opens on bare metal, "no PMU" on a VM without one */
  CHECK_EQ_INT(bpi_event_parse("cycles", false, &ev, &err), BP_OK);
  e = bpi_event_probe(&ev.attr);
  printf("probe of cycles: %s\n", e ? strerror(e) : "opens");
  CHECK(e == 0 || bpi_event_errno_no_pmu(e));
  bpi_event_cleanup(&ev);
  return true;
}

struct found {
  int count;
  int clock_errno;
  bool clock_generic;
  bool saw_other;
};

static int find_clock(const struct bp_event_info *info, void *ctx)
{
  struct found *f = ctx;
  f->count++;
  if(!strcasecmp(info->name, "perf::cpu-clock") ||
     !strcasecmp(info->name, "perf::PERF_COUNT_SW_CPU_CLOCK")) {
    f->clock_errno = info->open_errno;
    f->clock_generic = info->is_generic;
  }
  if(!strcasestr(info->name, "cpu-clock") &&
     !strcasestr(info->name, "cpu_clock"))
    f->saw_other = true;
  CHECK(info->desc != NULL);
  return 0;
}

static int count_and_stop(const struct bp_event_info *info, void *ctx)
{
  int *n = ctx;
  (void)info;
  (*n)++;
  return *n == 2;  /* stop after the second */
}

static void test_list(bool can_probe)
{
  struct bp_err err = {0};
  struct found f = {0, -2, false, false};

  CHECK_EQ_INT(bpi_events_list("CPU-Clock", can_probe, find_clock, &f,
                               &err), BP_OK);
  CHECK(f.count >= 1);
  CHECK(!f.saw_other);
  CHECK(f.clock_generic);
  CHECK_EQ_INT(f.clock_errno, can_probe ? 0 : -1);

  struct found g = {0, -2, false, false};
  CHECK_EQ_INT(bpi_events_list("cpu-clock", false, find_clock, &g, &err),
               BP_OK);
  CHECK_EQ_INT(g.clock_errno, -1);

  int n = 0;
  CHECK_EQ_INT(bpi_events_list(NULL, false, count_and_stop, &n, &err),
               BP_OK);
  CHECK_EQ_INT(n, 2);

  n = 0;
  CHECK_EQ_INT(bpi_events_list("no-such-event-anywhere", false,
                               count_and_stop, &n, &err), BP_OK);
  CHECK_EQ_INT(n, 0);
  CHECK_EQ_INT(err.code, BP_OK);
}

int main(void)
{
  test_generic_without_pfm();  /* first: before anything loads libpfm4 */
  test_generic_same_as_pfm();
  test_parse();
  test_parse_errors();
  test_perf_modifiers();
  test_suggest();
  test_errno_table();
  test_software_clock();
  bool can_probe = test_probe();
  test_list(can_probe);
  int rc = check_exit();
  if(rc == 0 && !can_probe)
    return 77;
  return rc;
}

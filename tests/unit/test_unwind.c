/* unwind.c's fast path against libdwfl: real workloads are sampled with
 * user registers and stack copies (the sampler, as record does), and every
 * sample is unwound twice, once by the fast path (libdwfl only for what it
 * does not handle) and once by libdwfl alone.  The pcs and statuses must
 * be the same, the fast path must have done most of the work, and the
 * chains must be real (deep ones, truncated ones). */
#include "bp_setup.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "records.h"
#include "sampler.h"
#include "stacktops.h"
#include "symbols.h"
#include "unwind.h"

#define MAX_SAMPLES 1500
#define MAX_MAPS 256

struct map {
  uint32_t pid;
  uint64_t start, end, pgoff;
  char *path;
};

struct sample {
  uint32_t pid, tid;
  uint64_t regs[64];
  uint32_t nregs;
  unsigned char *stack;
  uint64_t stack_len;
};

struct capture {
  struct bp_rec_layout lay;  /* a copy: the sampler is gone after */
  struct map maps[MAX_MAPS];
  uint32_t nmaps;
  struct sample *samples;
  uint32_t nsamples;
};

static bp_code on_record(void *ctx, const void *data, size_t len)
{
  struct capture *c = ctx;
  struct bp_rec r;
  if(bpi_records_parse(&c->lay, data, len, &r))
    return BP_OK;
  if(r.type == BP_REC_MMAP && (r.u.mmap.prot & PROT_EXEC) &&
     r.u.mmap.filename[0] == '/' && c->nmaps < MAX_MAPS) {
    struct map *m = &c->maps[c->nmaps++];
    *m = (struct map){ .pid = r.u.mmap.pid, .start = r.u.mmap.start,
                       .end = r.u.mmap.start + r.u.mmap.len,
                       .pgoff = r.u.mmap.pgoff,
                       .path = strdup(r.u.mmap.filename) };
  }
  const struct bp_rec_sample *s = &r.u.sample;
  if(r.type == BP_REC_SAMPLE && s->regs_abi && s->stack_dyn_size &&
     s->nregs <= 64 && c->nsamples < MAX_SAMPLES) {
    struct sample *out = &c->samples[c->nsamples];
    out->stack = malloc(s->stack_dyn_size);
    if(!out->stack)
      return BPE_NOMEM;
    memcpy(out->stack, s->stack, s->stack_dyn_size);
    out->stack_len = s->stack_dyn_size;
    memcpy(out->regs, s->regs, s->nregs * sizeof(uint64_t));
    out->nregs = s->nregs;
    out->pid = r.sid.pid;
    out->tid = r.sid.tid;
    c->nsamples++;
  }
  return BP_OK;
}

/* Sample argv with a stack copy of stack_bytes; false when the machine
 * cannot (the caller fails the test: record's dwarf tests need it too). */
static bool capture(char *const *argv, uint32_t stack_bytes,
                    struct capture *c)
{
  struct bp_sampler *smp = NULL;
  struct bp_err err = {0};
  struct bp_sampler_opts o = { .argv = argv, .input_fd = -1 };
  struct bp_sample_cfg cfg = {
    .freq = 4000, .regs_user = bpi_unwind_regs_mask(),
    .stack_user = stack_bytes,
  };
  struct bp_sampler_info info;
  cfg.attr.type = PERF_TYPE_SOFTWARE;
  cfg.attr.config = PERF_COUNT_SW_CPU_CLOCK;
  cfg.attr.exclude_kernel = 1;
  cfg.attr.exclude_hv = 1;
  bool ok = !bpi_sampler_new(&smp, &o, &err) &&
            !bpi_sampler_open(smp, &cfg, &info, &err) &&
            !info.stack_dropped;
  if(ok) {
    c->lay = *bpi_sampler_layout(smp);
    ok = !bpi_sampler_start(smp, &err) &&
         !bpi_sampler_run(smp, on_record, c, &err);
  }
  if(!ok)
    fprintf(stderr, "sampling %s: %s\n", argv[0], err.msg);
  bpi_sampler_free(smp);
  return ok;
}

/* Report every process's mappings to u, at their runtime addresses. */
static void add_procs(struct bp_unwind *u, struct bp_symbols *sym,
                      const struct capture *c)
{
  struct bp_unwind_module mods[MAX_MAPS];
  for(uint32_t i = 0; i < c->nsamples; i++) {
    uint32_t pid = c->samples[i].pid, n = 0;
    if(bpi_unwind_has_proc(u, pid))
      continue;
    for(uint32_t j = 0; j < c->nmaps; j++) {
      const struct map *m = &c->maps[j];
      int64_t delta;
      if(m->pid != pid ||
         bpi_symbols_vaddr_delta(sym, m->path, m->pgoff, &delta))
        continue;
      mods[n++] = (struct bp_unwind_module){
        .start = m->start, .end = m->end, .path = m->path,
        .bias = m->start - m->pgoff - (uint64_t)delta,
      };
    }
    CHECK_EQ_INT(bpi_unwind_add_proc(u, pid, mods, n), BP_OK);
  }
}

static double cpu_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU seconds to unwind every sample again, once everything is cached. */
/* The i-th captured sample as the unwinder takes it. */
static struct bp_unwind_sample sample_of(const struct capture *c, uint32_t i)
{
  const struct sample *s = &c->samples[i];
  return (struct bp_unwind_sample){
    .pid = s->pid, .tid = s->tid, .regs_mask = c->lay.sample_regs_user,
    .regs = s->regs, .nregs = s->nregs, .stack = s->stack,
    .stack_len = s->stack_len,
  };
}

static double warm_pass(struct bp_unwind *u, const struct capture *c,
                        uint64_t *pcs, uint32_t max)
{
  double t0 = cpu_seconds();
  for(uint32_t i = 0; i < c->nsamples; i++) {
    struct bp_unwind_sample us = sample_of(c, i);
    uint32_t n;
    bpi_unwind_sample(u, &us, pcs, max, &n);
  }
  return cpu_seconds() - t0;
}

/* bpi_unwind_sample_used: the copy cut to the bytes the unwinding said
 * it looked at unwinds the same (what stacktops.c relies on), and cutting
 * one word more changes most chains (the figure is tight, not the whole
 * copy).  Returns how many samples' copies were longer than their used
 * bytes. */
static uint32_t check_used(struct bp_unwind *u, const struct capture *c,
                           uint32_t max, const char *path)
{
  static uint64_t pa[1024], pb[1024];
  uint32_t differ = 0, shorter = 0, tight = 0, cuttable = 0;
  for(uint32_t i = 0; i < c->nsamples; i++) {
    struct bp_unwind_sample us = sample_of(c, i);
    uint32_t na = 0, nb = 0;
    struct bp_unwind_reach ra, rb;
    enum bp_unwind_status sa = bpi_unwind_sample_used(u, &us, pa, max, &na,
                                                      &ra);
    uint64_t used = ra.used;
    CHECK(used <= us.stack_len);
    shorter += used < us.stack_len;
    us.stack_len = used;
    enum bp_unwind_status sb = bpi_unwind_sample_used(u, &us, pb, max, &nb,
                                                      &rb);
    if(sa != sb || na != nb || memcmp(pa, pb, na * sizeof(*pa)) ||
       rb.used != used || rb.outermost != ra.outermost) {
      if(differ++ < 3)
        fprintf(stderr, "%s sample %u: cut to %" PRIu64 " bytes: status "
                "%d -> %d, %u -> %u pcs\n", path, i, used, sa, sb, na, nb);
      continue;
    }
    if(used < 8)
      continue;
    cuttable++;
    us.stack_len = used - 8;
    sb = bpi_unwind_sample_used(u, &us, pb, max, &nb, &rb);
    tight += sa != sb || na != nb || memcmp(pa, pb, na * sizeof(*pa));
  }
  CHECK_EQ_INT(differ, 0);
  CHECK(tight >= cuttable / 2);
  printf("  %s, max %u: %u of %u copies longer than what was read; one "
         "word less changed %u of %u chains\n", path, max, shorter,
         c->nsamples, tight, cuttable);
  return shorter;
}

/* stacktops.c on the captured samples, in the order they came: each
 * copy cut as it would be spilled (to a top learned from an earlier
 * sample of its thread) unwinds exactly as the whole copy does.  With
 * want_cut, most copies are cut (chains that reach _start); without
 * (copies too short for most chains), few are, and those few must
 * unwind the same too. */
static void check_tops(const struct capture *c, bool want_cut)
{
  struct bp_symbols *sym = NULL;
  struct bp_symbols_opts so = { .demangle = true };
  struct bp_stack_tops *t = NULL;
  struct bp_unwind *u = NULL;
  static uint64_t pa[1024], pb[1024];
  uint32_t differ = 0, cut = 0;
  uint64_t kept = 0, whole = 0;
  CHECK_EQ_INT(bpi_symbols_new(&sym, &so), BP_OK);
  CHECK_EQ_INT(bpi_stack_tops_new(&t, c->lay.sample_regs_user), BP_OK);
  CHECK_EQ_INT(bpi_unwind_new(&u), BP_OK);
  if(!sym || !t || !u)
    goto out;
  add_procs(bpi_stack_tops_unwinder(t), sym, c);
  add_procs(u, sym, c);
  for(uint32_t i = 0; i < c->nsamples; i++) {
    const struct sample *s = &c->samples[i];
    struct bp_rec_sample rs = {
      .regs_abi = 2, .nregs = s->nregs, .regs = s->regs, .stack = s->stack,
      .stack_size = s->stack_len, .stack_dyn_size = s->stack_len,
    };
    uint64_t keep = bpi_stack_tops_keep(t, s->pid, s->tid, &rs);
    CHECK(keep <= ((s->stack_len + 7) & ~(uint64_t)7));
    struct bp_unwind_sample us = sample_of(c, i);
    uint32_t na = 0, nb = 0;
    enum bp_unwind_status sa = bpi_unwind_sample(u, &us, pa, 1024, &na);
    if(keep < us.stack_len)
      us.stack_len = keep;
    enum bp_unwind_status sb = bpi_unwind_sample(u, &us, pb, 1024, &nb);
    if(sa != sb || na != nb || memcmp(pa, pb, na * sizeof(*pa))) {
      if(differ++ < 3)
        fprintf(stderr, "stack tops, sample %u: kept %" PRIu64 " of %" PRIu64
                " bytes: status %d -> %d, %u -> %u pcs\n", i, keep,
                s->stack_len, sa, sb, na, nb);
    }
    cut += keep < s->stack_len;
    kept += us.stack_len;
    whole += s->stack_len;
  }
  struct bp_stack_tops_stats st;
  bpi_stack_tops_get_stats(t, &st);
  printf("  stack tops: %u of %u copies cut, %" PRIu64 " of %" PRIu64
         " bytes kept, %" PRIu64 " threads learned, %" PRIu64 " given up\n",
         cut, c->nsamples, kept, whole, st.learned, st.given_up);
  CHECK_EQ_INT(differ, 0);
  if(want_cut) {
    /* the thread's first BP_STACK_TOP_AFTER are kept whole */
    CHECK(c->nsamples > BP_STACK_TOP_AFTER);
    CHECK(cut >= (c->nsamples - BP_STACK_TOP_AFTER) * 9 / 10);
    CHECK(st.learned >= 1);
  }
out:
  bpi_unwind_free(u);
  bpi_stack_tops_free(t);
  bpi_symbols_free(sym);
}

struct outcome {
  uint32_t deep, truncated, complete, fast;
  uint32_t shorter;  /* copies longer than what their unwinding read */
};

/* Unwind every captured sample both ways with at most max pcs. */
static void compare(const struct capture *c, uint32_t max,
                    struct outcome *o)
{
  struct bp_symbols *sym = NULL;
  struct bp_symbols_opts so = { .demangle = true };
  struct bp_unwind *fast = NULL, *slow = NULL;
  static uint64_t pf[1024], ps[1024];
  uint32_t mismatches = 0;
  memset(o, 0, sizeof(*o));
  CHECK_EQ_INT(bpi_symbols_new(&sym, &so), BP_OK);
  CHECK_EQ_INT(bpi_unwind_new(&fast), BP_OK);
  CHECK_EQ_INT(bpi_unwind_new(&slow), BP_OK);
  if(!sym || !fast || !slow)
    goto out;
  bpi_unwind_set_fast(slow, false);
  add_procs(fast, sym, c);
  add_procs(slow, sym, c);
  for(uint32_t i = 0; i < c->nsamples; i++) {
    struct bp_unwind_sample us = sample_of(c, i);
    uint32_t nf = 0, ns = 0;
    enum bp_unwind_status stf = bpi_unwind_sample(fast, &us, pf, max, &nf);
    enum bp_unwind_status sts = bpi_unwind_sample(slow, &us, ps, max, &ns);
    if(stf != sts || nf != ns || memcmp(pf, ps, nf * sizeof(*pf))) {
      if(mismatches++ < 5) {
        fprintf(stderr, "sample %u: fast status %d, %u pcs; libdwfl "
                "status %d, %u pcs\n", i, stf, nf, sts, ns);
        for(uint32_t j = 0; j < nf || j < ns; j++)
          fprintf(stderr, "  %2u: %#18" PRIx64 " %#18" PRIx64 "\n", j,
                  j < nf ? pf[j] : 0, j < ns ? ps[j] : 0);
      }
      continue;
    }
    o->deep += ns >= 4;
    o->truncated += sts == BP_UNWIND_TRUNCATED;
    o->complete += sts == BP_UNWIND_COMPLETE;
  }
  CHECK_EQ_INT(mismatches, 0);
  o->shorter = check_used(fast, c, max, "fast path");
  check_used(slow, c, max, "libdwfl");
  struct bp_unwind_stats st;
  bpi_unwind_get_stats(slow, &st);
  CHECK_EQ_INT(st.fast, 0);
  bpi_unwind_get_stats(fast, &st);
  o->fast = (uint32_t)st.fast;
  double fast_s = warm_pass(fast, c, pf, max);
  double slow_s = warm_pass(slow, c, ps, max);
  printf("  max %u: %u samples, %u by the fast path, %u deep, %u complete,"
         " %u truncated; warm CPU per sample: %.2f us, libdwfl "
         "alone %.2f us (information only)\n", max, c->nsamples, o->fast,
         o->deep, o->complete, o->truncated, fast_s * 1e6 / c->nsamples,
         slow_s * 1e6 / c->nsamples);
out:
  bpi_unwind_free(fast);
  bpi_unwind_free(slow);
  bpi_symbols_free(sym);
}

static void release(struct capture *c)
{
  for(uint32_t i = 0; i < c->nmaps; i++)
    free(c->maps[i].path);
  for(uint32_t i = 0; i < c->nsamples; i++)
    free(c->samples[i].stack);
  free(c->samples);
}

/* Sample a workload and compare the two paths on its samples. */
static void run(const char *dir, const char *name, const char *arg1,
                const char *arg2, uint32_t stack_bytes, bool want_truncated)
{
  char path[512];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  char *argv[] = { path, (char *)arg1, (char *)arg2, NULL };
  struct capture *c = calloc(1, sizeof(*c));
  CHECK(c != NULL);
  if(!c)
    return;
  c->samples = calloc(MAX_SAMPLES, sizeof(*c->samples));
  CHECK(c->samples != NULL);
  printf("%s (stack copy %u bytes)\n", name, stack_bytes);
  if(c->samples && capture(argv, stack_bytes, c)) {
    struct outcome o;
    CHECK(c->nsamples >= 100);
    compare(c, 1024, &o);
    /* not vacuous: real chains, mostly walked by the fast path */
    CHECK(o.deep >= c->nsamples / 2);
    CHECK(o.fast >= c->nsamples * 9 / 10);
    if(want_truncated)
      CHECK(o.truncated >= 1);
    else {
      CHECK(o.complete >= c->nsamples / 2);
      /* whole chains end below the copy's end: the part above is unread */
      CHECK(o.shorter >= c->nsamples / 2);
    }
    check_tops(c, !want_truncated);
    /* a small max cuts the chains: the frame past it is still unwound */
    compare(c, 3, &o);
    CHECK(o.complete + o.truncated >= c->nsamples / 2);
  }
  else {
    CHECK(!"sampled with stack copies");
  }
  release(c);
  free(c);
}

int main(void)
{
  const char *dir = getenv("WORKLOADS");
  CHECK(dir != NULL);
  if(!dir)
    return check_exit();
  run(dir, "unwind_chain", "0.3", NULL, 8192, false);
  run(dir, "unwind_chain_cxx", "0.3", NULL, 8192, false);
  run(dir, "unwind_qsort", "0.3", NULL, 8192, false);
  run(dir, "unwind_recurse", "0.3", "200", 1024, true);
  return check_exit();
}

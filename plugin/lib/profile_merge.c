/* profile_merge: one profile from several recordings.  See
 * profile_merge.h. */
#include "bp_setup.h"
#include "profile_merge.h"
#include "err.h"

#include <stdlib.h>
#include <string.h>

/* src's table indexes -> dst's */
struct remap {
  uint32_t *lib, *func, *frame, *stack, *thread;
};

static void remap_free(struct remap *r)
{
  free(r->lib);
  free(r->func);
  free(r->frame);
  free(r->stack);
  free(r->thread);
}

static uint32_t *table(uint32_t n)
{
  return malloc((n ? n : 1) * sizeof(uint32_t));
}

static const char *str(const struct bp_profile *p, uint32_t id)
{
  return bpi_profile_str(p, id);
}

static bool merge_libs(struct bp_profile *d, const struct bp_profile *s,
                       struct remap *r)
{
  for(uint32_t i = 0; i < s->nlibs; i++) {
    const struct bp_lib *l = &s->libs[i];
    uint32_t k = bpi_profile_lib(d, str(s, l->path), str(s, l->build_id));
    if(k == BP_NONE)
      return false;
    r->lib[i] = k;
    if(l->lo < d->libs[k].lo)
      d->libs[k].lo = l->lo;
    if(l->hi > d->libs[k].hi)
      d->libs[k].hi = l->hi;
  }
  return true;
}

static bool merge_funcs(struct bp_profile *d, const struct bp_profile *s,
                        struct remap *r)
{
  for(uint32_t i = 0; i < s->nfuncs; i++) {
    const struct bp_func *f = &s->funcs[i];
    uint32_t lib = f->lib < s->nlibs ? r->lib[f->lib] : f->lib;
    uint32_t k = bpi_profile_func(d, str(s, f->name), str(s, f->file), lib,
                                  f->start_line);
    if(k == BP_NONE)
      return false;
    d->funcs[k].unresolved = f->unresolved;
    r->func[i] = k;
  }
  return true;
}

/* Frames in their order: an inlined call's machine frame comes first. */
static bool merge_frames(struct bp_profile *d, const struct bp_profile *s,
                         struct remap *r)
{
  for(uint32_t i = 0; i < s->nframes; i++) {
    const struct bp_frame *f = &s->frames[i];
    uint32_t func = f->func < s->nfuncs ? r->func[f->func] : BP_NONE;
    uint32_t k;
    if(f->inline_depth && f->outer < i)
      k = bpi_profile_inline_frame(d, r->frame[f->outer], f->inline_depth,
                                   func, f->line);
    else {
      k = bpi_profile_frame(d, f->lib < s->nlibs ? r->lib[f->lib] : f->lib,
                            f->addr, (enum bp_frame_kind)f->kind);
      if(k != BP_NONE) {
        d->frames[k].func = func;
        d->frames[k].line = f->line;
      }
    }
    if(k == BP_NONE)
      return false;
    r->frame[i] = k;
  }
  return true;
}

static bool merge_stacks(struct bp_profile *d, const struct bp_profile *s,
                         struct remap *r)
{
  for(uint32_t i = 0; i < s->nstacks; i++) {
    const struct bp_stack *st = &s->stacks[i];
    uint32_t parent = st->parent == BP_NONE ? BP_NONE : r->stack[st->parent];
    uint32_t k = bpi_profile_stack(d, parent, r->frame[st->frame]);
    if(k == BP_NONE)
      return false;
    r->stack[i] = k;
  }
  return true;
}

static bool merge_threads(struct bp_profile *d, const struct bp_profile *s,
                          struct remap *r)
{
  for(uint32_t i = 0; i < s->nthreads; i++) {
    const struct bp_thread *t = &s->threads[i];
    uint32_t k = bpi_profile_thread(d, t->pid, t->tid);
    if(k == BP_NONE)
      return false;
    struct bp_thread *o = &d->threads[k];
    uint32_t name = bpi_profile_string(d, str(s, t->name));
    uint32_t proc = bpi_profile_string(d, str(s, t->process_name));
    if(name == BP_NONE || proc == BP_NONE)
      return false;
    o->name = name;
    o->process_name = proc;
    if(!o->start_ns || t->start_ns < o->start_ns)
      o->start_ns = t->start_ns;
    if(t->end_ns > o->end_ns)
      o->end_ns = t->end_ns;
    r->thread[i] = k;
  }
  return true;
}

static bp_code merge_samples(struct bp_profile *d, const struct bp_profile *s,
                             const struct remap *r)
{
  struct bp_sample smp;
  bp_code rc = bpi_profile_timeline_rewind(s);
  while(!rc && bpi_profile_timeline_next(s, &smp))
    rc = bpi_profile_add_sample(d, r->thread[smp.thread],
                                smp.stack == BP_NONE ? BP_NONE :
                                r->stack[smp.stack], smp.time_ns,
                                smp.weight);
  return rc;
}

/* The off-CPU intervals (--off-cpu), remapped the same way. */
static bp_code merge_off(struct bp_profile *d, const struct bp_profile *s,
                         const struct remap *r)
{
  struct bp_off_sample o;
  bp_code rc = bpi_profile_off_rewind(s);
  while(!rc && bpi_profile_off_next(s, &o))
    rc = bpi_profile_add_off(d, r->thread[o.thread],
                             o.stack == BP_NONE ? BP_NONE : r->stack[o.stack],
                             o.time_ns, o.dur_ns, o.preempted);
  return rc;
}

/* dst's last marker, src's, goes on dst's copy of src's thread t (src's
 * main thread, main, when t is none of its own).  Every recording is a
 * process of its own, so a later repetition's markers belong on its
 * process's track, not on the first repetition's (dst's main thread). */
static void place_last_marker(struct bp_profile *d,
                              const struct bp_profile *s,
                              const struct remap *r, uint32_t main,
                              uint32_t t)
{
  if(s->nthreads)
    d->markers[d->nmarkers - 1].thread = r->thread[t < s->nthreads ? t
                                                                   : main];
}

/* src's markers (the benchmarks its harness marked, each kind kept):
 * their times are on the same clock as the samples', which keep theirs,
 * so they mark the same samples in dst. */
static bp_code merge_markers(struct bp_profile *d, const struct bp_profile *s,
                             const struct remap *r, uint32_t main)
{
  bp_code rc = BP_OK;
  for(size_t i = 0; !rc && i < s->nmarkers; i++) {
    const struct bp_marker *m = &s->markers[i];
    rc = bpi_profile_add_marker_kind(d, m->kind, m->name, m->start_ns,
                                     m->end_ns, m->counters, m->ncounters);
    if(!rc)
      place_last_marker(d, s, r, main, m->thread);
  }
  return rc;
}

/* The run's totals: counters and losses add up; the time range widens. */
static void merge_meta(struct bp_profile *d, const struct bp_profile *s)
{
  struct bp_profile_meta *m = &d->meta;
  const struct bp_profile_meta *o = &s->meta;
  if(o->end_ns > m->end_ns)
    m->end_ns = o->end_ns;
  m->lost_records += o->lost_records;
  m->lost_events += o->lost_events;
  m->throttled += o->throttled;
  m->corrupt_records += o->corrupt_records;
  m->unresolved_frames += o->unresolved_frames;
  m->unwind_samples += o->unwind_samples;
  m->dwarf_samples += o->dwarf_samples;
  m->unwind_truncated += o->unwind_truncated;
  m->unwind_failed += o->unwind_failed;
  m->symbolize_ms += o->symbolize_ms;
  m->symbol_tables_read += o->symbol_tables_read;
  m->symbol_tables_reused += o->symbol_tables_reused;
  m->unwind_ms += o->unwind_ms;
  if(m->exit_status == 0)
    m->exit_status = o->exit_status;
  if(m->ncounters == o->ncounters)
    bpi_counters_add(m->counters, o->counters, o->ncounters);
}

bp_code bpi_profile_merge(struct bp_profile *dst,
                          const struct bp_profile *src, const char *marker)
{
  struct remap r = {table(src->nlibs), table(src->nfuncs),
                    table(src->nframes), table(src->nstacks),
                    table(src->nthreads)};
  uint32_t main = bpi_profile_main_thread(src);
  bp_code rc = r.lib && r.func && r.frame && r.stack && r.thread ? BP_OK
                                                                 : BPE_NOMEM;
  if(!rc && !(merge_libs(dst, src, &r) && merge_funcs(dst, src, &r) &&
              merge_frames(dst, src, &r) && merge_stacks(dst, src, &r) &&
              merge_threads(dst, src, &r)))
    rc = BPE_NOMEM;
  if(!rc)
    rc = merge_samples(dst, src, &r);
  if(!rc)
    rc = merge_off(dst, src, &r);
  if(!rc)
    rc = merge_markers(dst, src, &r, main);
  if(!rc) {
    merge_meta(dst, src);
    rc = bpi_profile_add_marker_kind(dst, BP_MARKER_REPETITION, marker,
                                     src->meta.start_ns, src->meta.end_ns,
                                     src->meta.counters,
                                     src->meta.ncounters);
    if(!rc)
      place_last_marker(dst, src, &r, main, BP_NONE);
  }
  remap_free(&r);
  return rc;
}

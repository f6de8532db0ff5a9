#include "bp_setup.h"
#include "profile.h"
#include "buf.h"

#include <stdlib.h>
#include <string.h>

/* Grow a table by doubling; evaluates to false on allocation failure. */
#define GROW(arr, n, cap)                                             \
  ((n) < (cap) ||                                                     \
   grow_array((void **)&(arr), &(cap), sizeof(*(arr))))

static bool grow_array(void **arr, uint32_t *cap, size_t elem)
{
  uint32_t ncap = *cap ? *cap * 2 : 64;
  if(ncap < *cap)
    return false;
  void *p = realloc(*arr, (size_t)ncap * elem);
  if(!p)
    return false;
  *arr = p;
  *cap = ncap;
  return true;
}

bp_code bpi_profile_new(struct bp_profile **out)
{
  struct bp_profile *p = calloc(1, sizeof(*p));
  if(!p)
    return BPE_NOMEM;
  bpi_strtab_init(&p->strings);
  bpi_map_init(&p->lib_index);
  bpi_map_init(&p->func_index);
  bpi_map_init(&p->frame_index);
  bpi_map_init(&p->stack_index);
  bpi_map_init(&p->thread_index);
  bpi_map_init(&p->count_index);
  bpi_map_init(&p->off_index);
  /* string 0 is always "" so a zeroed id means "nothing" */
  if(bpi_strtab_intern(&p->strings, "") != 0) {
    bpi_profile_free(p);
    return BPE_NOMEM;
  }
  *out = p;
  return BP_OK;
}

static void free_counters(struct bp_profile_meta *m)
{
  for(size_t i = 0; i < m->ncounters; i++) {
    free(m->counters[i].name);
    free(m->counters[i].slug);
  }
  free(m->counters);
  m->counters = NULL;
  m->ncounters = 0;
}

bp_code bpi_profile_set_counters(struct bp_profile *p,
                                 const struct bp_counter *c, size_t n)
{
  struct bp_profile_meta *m = &p->meta;
  free_counters(m);
  if(!n)
    return BP_OK;
  m->counters = calloc(n, sizeof(*m->counters));
  if(!m->counters)
    return BPE_NOMEM;
  for(size_t i = 0; i < n; i++) {
    m->counters[i] = c[i];
    m->counters[i].name = strdup(c[i].name);
    m->counters[i].slug = strdup(c[i].slug);
    m->ncounters = i + 1;
    if(!m->counters[i].name || !m->counters[i].slug)
      return BPE_NOMEM;
  }
  return BP_OK;
}

static void free_markers(struct bp_profile *p)
{
  for(size_t i = 0; i < p->nmarkers; i++) {
    free(p->markers[i].name);
    for(size_t k = 0; k < p->markers[i].ncounters; k++) {
      free(p->markers[i].counters[k].name);
      free(p->markers[i].counters[k].slug);
    }
    free(p->markers[i].counters);
  }
  free(p->markers);
}

bp_code bpi_profile_add_marker(struct bp_profile *p, const char *name,
                               uint64_t start_ns, uint64_t end_ns,
                               const struct bp_counter *c, size_t n)
{
  return bpi_profile_add_marker_kind(p, BP_MARKER_BENCHMARK, name, start_ns,
                                     end_ns, c, n);
}

uint32_t bpi_profile_main_thread(const struct bp_profile *p)
{
  for(uint32_t i = 0; i < p->nthreads; i++)
    if(p->threads[i].tid == p->threads[0].pid)
      return i;
  return 0;
}

uint32_t bpi_profile_marker_thread(const struct bp_profile *p,
                                   const struct bp_marker *m)
{
  return m->thread < p->nthreads ? m->thread : bpi_profile_main_thread(p);
}

size_t bpi_profile_benchmark_markers(const struct bp_profile *p)
{
  size_t n = 0;
  for(size_t i = 0; i < p->nmarkers; i++)
    n += p->markers[i].kind == BP_MARKER_BENCHMARK;
  return n;
}

bp_code bpi_profile_add_marker_kind(struct bp_profile *p,
                                    enum bp_marker_kind kind,
                                    const char *name, uint64_t start_ns,
                                    uint64_t end_ns,
                                    const struct bp_counter *c, size_t n)
{
  /* the array doubles when its count reaches a power of two: a harness
   * marking 100,000 runs made this realloc quadratic */
  size_t had = p->nmarkers;
  struct bp_marker *m = p->markers;
  if(!(had & (had - 1))) {
    m = realloc(p->markers, (had ? 2 * had : 1) * sizeof(*m));
    if(!m)
      return BPE_NOMEM;
    p->markers = m;
  }
  m = &p->markers[p->nmarkers++];
  *m = (struct bp_marker){.kind = kind, .start_ns = start_ns,
                          .end_ns = end_ns, .thread = BP_NONE};
  m->name = strdup(name);
  if(!m->name)
    return BPE_NOMEM;
  if(!n)
    return BP_OK;
  /* the same copy as the run's counters get */
  struct bp_profile_meta tmp = {0};
  struct bp_profile holder = {.meta = tmp};
  bp_code rc = bpi_profile_set_counters(&holder, c, n);
  m->counters = holder.meta.counters;
  m->ncounters = holder.meta.ncounters;
  return rc;
}

static void meta_cleanup(struct bp_profile_meta *m)
{
  free_counters(m);
  free(m->requested_event);
  free(m->event);
  free(m->fallback_reason);
  free(m->call_graph);
  free(m->call_graph_fallback);
  free(m->command);
  free(m->host);
  free(m->kernel_reason);
  free(m->off_cpu_stack_note);
}

void bpi_profile_free(struct bp_profile *p)
{
  if(!p)
    return;
  meta_cleanup(&p->meta);
  free_markers(p);
  bpi_strtab_cleanup(&p->strings);
  free(p->libs);
  free(p->funcs);
  free(p->frames);
  free(p->stacks);
  free(p->threads);
  free(p->counts);
  bpi_map_cleanup(&p->lib_index);
  bpi_map_cleanup(&p->func_index);
  bpi_map_cleanup(&p->frame_index);
  bpi_map_cleanup(&p->stack_index);
  bpi_map_cleanup(&p->thread_index);
  bpi_map_cleanup(&p->count_index);
  if(p->timeline)
    fclose(p->timeline);
  free(p->off_counts);
  bpi_map_cleanup(&p->off_index);
  if(p->off_timeline)
    fclose(p->off_timeline);
  free(p);
}

bp_code bpi_profile_meta_set(char **field, const char *s)
{
  char *copy = NULL;
  if(s && !(copy = strdup(s)))
    return BPE_NOMEM;
  free(*field);
  *field = copy;
  return BP_OK;
}

uint32_t bpi_profile_string(struct bp_profile *p, const char *s)
{
  return bpi_strtab_intern(&p->strings, s);
}

static const char *basename_of(const char *path)
{
  const char *slash = strrchr(path, '/');
  return slash && slash[1] ? slash + 1 : path;
}

uint32_t bpi_profile_lib(struct bp_profile *p, const char *path,
                         const char *build_id)
{
  if(!build_id)
    build_id = "";
  uint32_t path_id = bpi_profile_string(p, path);
  uint32_t bid_id = bpi_profile_string(p, build_id);
  if(path_id == BP_NONE || bid_id == BP_NONE)
    return BP_NONE;
  uint32_t idx = bpi_map_get(&p->lib_index, path_id, bid_id);
  if(idx != BP_NONE)
    return idx;
  uint32_t name_id = bpi_profile_string(p, basename_of(path));
  if(name_id == BP_NONE || !GROW(p->libs, p->nlibs, p->libs_cap))
    return BP_NONE;
  idx = p->nlibs;
  if(bpi_map_put(&p->lib_index, path_id, bid_id, idx))
    return BP_NONE;
  p->libs[idx] = (struct bp_lib){
    .name = name_id, .path = path_id, .build_id = bid_id,
    .lo = UINT64_MAX, .hi = 0,
  };
  p->nlibs++;
  return idx;
}

uint32_t bpi_profile_func(struct bp_profile *p, const char *name,
                          const char *file, uint32_t lib,
                          uint32_t start_line)
{
  uint32_t name_id = bpi_profile_string(p, name);
  uint32_t file_id = bpi_profile_string(p, file ? file : "");
  if(name_id == BP_NONE || file_id == BP_NONE)
    return BP_NONE;
  uint64_t k2 = ((uint64_t)lib << 32) | file_id;
  uint32_t idx = bpi_map_get(&p->func_index, name_id, k2);
  if(idx != BP_NONE)
    return idx;
  if(!GROW(p->funcs, p->nfuncs, p->funcs_cap))
    return BP_NONE;
  idx = p->nfuncs;
  if(bpi_map_put(&p->func_index, name_id, k2, idx))
    return BP_NONE;
  p->funcs[idx] = (struct bp_func){
    .name = name_id, .file = file_id, .lib = lib, .start_line = start_line,
  };
  p->nfuncs++;
  return idx;
}

uint32_t bpi_profile_frame(struct bp_profile *p, uint32_t lib, uint64_t addr,
                           enum bp_frame_kind kind)
{
  uint64_t k1 = ((uint64_t)kind << 32) | lib;
  uint32_t idx = bpi_map_get(&p->frame_index, k1, addr);
  if(idx != BP_NONE)
    return idx;
  if(!GROW(p->frames, p->nframes, p->frames_cap))
    return BP_NONE;
  idx = p->nframes;
  if(bpi_map_put(&p->frame_index, k1, addr, idx))
    return BP_NONE;
  p->frames[idx] = (struct bp_frame){
    .lib = lib, .addr = addr, .func = BP_NONE, .line = 0,
    .kind = (uint8_t)kind, .outer = BP_NONE,
  };
  p->nframes++;
  if(lib < p->nlibs) {
    struct bp_lib *l = &p->libs[lib];
    if(addr < l->lo)
      l->lo = addr;
    if(addr > l->hi)
      l->hi = addr;
  }
  return idx;
}

uint32_t bpi_profile_inline_frame(struct bp_profile *p, uint32_t outer,
                                  uint8_t depth, uint32_t func,
                                  uint32_t line)
{
  if(outer >= p->nframes || !depth)
    return BP_NONE;
  const struct bp_frame o = p->frames[outer];
  /* the machine frames' key with the depth above the kind */
  uint64_t k1 = ((uint64_t)(o.kind | (uint32_t)depth << 8) << 32) | o.lib;
  uint32_t idx = bpi_map_get(&p->frame_index, k1, o.addr);
  if(idx != BP_NONE)
    return idx;
  if(!GROW(p->frames, p->nframes, p->frames_cap))
    return BP_NONE;
  idx = p->nframes;
  if(bpi_map_put(&p->frame_index, k1, o.addr, idx))
    return BP_NONE;
  p->frames[idx] = (struct bp_frame){
    .lib = o.lib, .addr = o.addr, .func = func, .line = line,
    .kind = o.kind, .inline_depth = depth, .outer = outer,
  };
  p->nframes++;
  return idx;
}

uint32_t bpi_profile_stack(struct bp_profile *p, uint32_t parent,
                           uint32_t frame)
{
  uint32_t idx = bpi_map_get(&p->stack_index, parent, frame);
  if(idx != BP_NONE)
    return idx;
  if(!GROW(p->stacks, p->nstacks, p->stacks_cap))
    return BP_NONE;
  idx = p->nstacks;
  if(bpi_map_put(&p->stack_index, parent, frame, idx))
    return BP_NONE;
  p->stacks[idx] = (struct bp_stack){.parent = parent, .frame = frame};
  p->nstacks++;
  return idx;
}

uint32_t bpi_profile_thread(struct bp_profile *p, uint32_t pid, uint32_t tid)
{
  uint32_t idx = bpi_map_get(&p->thread_index, pid, tid);
  if(idx != BP_NONE)
    return idx;
  if(!GROW(p->threads, p->nthreads, p->threads_cap))
    return BP_NONE;
  idx = p->nthreads;
  if(bpi_map_put(&p->thread_index, pid, tid, idx))
    return BP_NONE;
  p->threads[idx] = (struct bp_thread){.pid = pid, .tid = tid};
  p->nthreads++;
  return idx;
}

bp_code bpi_profile_add_sample(struct bp_profile *p, uint32_t thread,
                               uint32_t stack, uint64_t time_ns,
                               uint64_t weight)
{
  uint32_t idx = bpi_map_get(&p->count_index, thread, stack);
  if(idx == BP_NONE) {
    if(!GROW(p->counts, p->ncounts, p->counts_cap))
      return BPE_NOMEM;
    idx = p->ncounts;
    if(bpi_map_put(&p->count_index, thread, stack, idx))
      return BPE_NOMEM;
    p->counts[idx] = (struct bp_stack_count){.thread = thread,
                                             .stack = stack};
    p->ncounts++;
  }
  p->counts[idx].count++;
  p->counts[idx].weight += weight;
  if(thread < p->nthreads)
    p->threads[thread].samples++;
  p->meta.samples++;

  if(!p->timeline) {
    p->timeline = tmpfile();
    if(!p->timeline)
      return BPE_IO;
  }
  struct bp_sample s = {.thread = thread, .stack = stack, .time_ns = time_ns,
                        .weight = weight};
  if(fwrite(&s, sizeof(s), 1, p->timeline) != 1)
    return BPE_IO;
  p->timeline_len++;
  return BP_OK;
}

bp_code bpi_profile_timeline_rewind(const struct bp_profile *p)
{
  if(!p->timeline)
    return BP_OK;
  if(fflush(p->timeline) || fseek(p->timeline, 0, SEEK_SET))
    return BPE_IO;
  return BP_OK;
}

bool bpi_profile_timeline_next(const struct bp_profile *p,
                               struct bp_sample *out)
{
  return p->timeline && fread(out, sizeof(*out), 1, p->timeline) == 1;
}

size_t bpi_profile_timeline_read(const struct bp_profile *p,
                                 struct bp_sample *out, size_t max)
{
  return p->timeline ? fread(out, sizeof(*out), max, p->timeline) : 0;
}

const char *bpi_profile_frame_name(const struct bp_profile *p, uint32_t frame)
{
  if(frame >= p->nframes || p->frames[frame].func >= p->nfuncs)
    return "";
  return bpi_profile_str(p, p->funcs[p->frames[frame].func].name);
}

const char *bpi_profile_frame_label(const struct bp_profile *p,
                                    uint32_t frame, char *buf, size_t len)
{
  if(frame >= p->nframes)
    return "";
  const struct bp_frame *f = &p->frames[frame];
  if(f->func < p->nfuncs && !p->funcs[f->func].unresolved)
    return bpi_profile_str(p, p->funcs[f->func].name);
  /* an address no mapping or symbol names: one function, whatever lib */
  if(f->func < p->nfuncs) {
    const char *name = bpi_profile_str(p, p->funcs[f->func].name);
    if(!strcmp(name, BP_UNMAPPED) || !strcmp(name, BP_ANON_CODE))
      return name;
  }
  /* no symbol: the address, or the unwind-table range ("fn_START") that
   * the symbolizer named it by, and the library */
  if(f->func < p->nfuncs)
    snprintf(buf, len, "%s (in %s)",
             bpi_profile_str(p, p->funcs[f->func].name),
             bpi_profile_frame_lib(p, frame));
  else
    snprintf(buf, len, "0x%llx (in %s)", (unsigned long long)f->addr,
             bpi_profile_frame_lib(p, frame));
  return buf;
}

const char *bpi_profile_frame_lib(const struct bp_profile *p, uint32_t frame)
{
  if(frame >= p->nframes || p->frames[frame].lib >= p->nlibs)
    return "";
  return bpi_profile_str(p, p->libs[p->frames[frame].lib].name);
}

void bpi_profile_clean_name(struct bp_buf *b, const char *name, char sep)
{
  const unsigned char *s = (const unsigned char *)(name ? name : "");
  uint32_t cp;
  while(*s) {
    size_t n = bpi_utf8_seq(s, &cp);
    if(n == 0) {
      bpi_buf_adds(b, "\xef\xbf\xbd");
      s++;
      continue;
    }
    if(n == 1) {
      char c = (char)*s;
      if(*s < 0x20 || *s == 0x7f)
        c = ' ';
      else if(sep && c == sep)
        c = ':';
      bpi_buf_addc(b, c);
    }
    else
      bpi_buf_add(b, s, n);
    s += n;
  }
}

uint32_t bpi_profile_main_lib(const struct bp_profile *p)
{
  if(!p->nthreads)
    return BP_NONE;
  const char *comm = bpi_profile_str(p, p->threads[0].process_name);
  size_t n = strlen(comm);
  if(!n)
    return BP_NONE;
  for(uint32_t i = 0; i < p->nlibs; i++) {
    const char *name = bpi_profile_str(p, p->libs[i].name);
    /* the kernel cuts comm at 15 bytes */
    if(n >= 15 ? !strncmp(name, comm, n) : !strcmp(name, comm))
      return i;
  }
  return BP_NONE;
}

uint32_t bpi_profile_stack_depth(const struct bp_profile *p, uint32_t stack)
{
  uint32_t depth = 0;
  for(; stack < p->nstacks; stack = p->stacks[stack].parent)
    depth++;
  return depth;
}

uint32_t bpi_profile_max_depth(const struct bp_profile *p)
{
  uint32_t max = 0;
  for(uint32_t i = 0; i < p->ncounts; i++) {
    uint32_t d = bpi_profile_stack_depth(p, p->counts[i].stack);
    if(d > max)
      max = d;
  }
  return max;
}

uint64_t bpi_profile_unresolved_frames(const struct bp_profile *p)
{
  uint8_t *seen_stack = calloc(p->nstacks ? p->nstacks : 1, 1);
  uint8_t *seen_frame = calloc(p->nframes ? p->nframes : 1, 1);
  uint64_t n = 0;
  if(seen_stack && seen_frame)
    for(uint32_t i = 0; i < p->ncounts; i++)
      for(uint32_t s = p->counts[i].stack; s < p->nstacks && !seen_stack[s];
          s = p->stacks[s].parent) {
        seen_stack[s] = 1;  /* and so, from here on, its parents */
        uint32_t f = p->stacks[s].frame;
        if(f >= p->nframes || seen_frame[f])
          continue;
        seen_frame[f] = 1;
        uint32_t fn = p->frames[f].func;
        n += fn >= p->nfuncs || p->funcs[fn].unresolved;
      }
  free(seen_stack);
  free(seen_frame);
  return n;
}

uint64_t bpi_profile_sampled_ns(const struct bp_profile *p)
{
  uint64_t ns = 0;
  if(p->meta.time_event)
    for(uint32_t i = 0; i < p->ncounts; i++)
      ns += p->counts[i].weight;
  return ns;
}

double bpi_profile_unsampled_pct(const struct bp_profile *p)
{
  const struct bp_profile_meta *m = &p->meta;
  if(!m->time_event || m->task_clock_ns <= 0)
    return -1;
  double pct = 100.0 * (1.0 - (double)bpi_profile_sampled_ns(p) /
                              m->task_clock_ns);
  return pct < 0 ? 0 : pct;
}

void bpi_profile_unsampled_note(const struct bp_profile *p, char *buf,
                                size_t len)
{
  const struct bp_profile_meta *m = &p->meta;
  double pct = bpi_profile_unsampled_pct(p);
  if(!m->kernel_unsampled || !len) {
    if(len)
      buf[0] = '\0';
    return;
  }
  int n = snprintf(buf, len, "kernel time not sampled (%s)",
                   m->kernel_reason ? m->kernel_reason : "unknown why");
  if(pct >= 0 && n >= 0 && (size_t)n < len)
    snprintf(buf + n, len - (size_t)n,
             ": %.1f%% of task-clock is in no sample", pct);
}

static int by_self_desc(const void *a, const void *b)
{
  const struct bp_func_share *x = a, *y = b;
  if(x->self != y->self)
    return x->self < y->self ? 1 : -1;
  if(x->total != y->total)
    return x->total < y->total ? 1 : -1;
  return x->func < y->func ? -1 : (x->func > y->func);
}

size_t bpi_profile_top_funcs(const struct bp_profile *p,
                             struct bp_func_share *out, size_t max,
                             uint64_t *total_samples)
{
  *total_samples = 0;
  if(!p->nfuncs) {
    for(uint32_t i = 0; i < p->ncounts; i++)
      *total_samples += p->counts[i].count;
    return 0;
  }
  struct bp_func_share *all = calloc(p->nfuncs, sizeof(*all));
  uint32_t *seen = calloc(p->nfuncs, sizeof(*seen)); /* generation marks */
  size_t n = 0;
  if(!all || !seen)
    goto out;
  for(uint32_t f = 0; f < p->nfuncs; f++)
    all[f].func = f;
  for(uint32_t i = 0; i < p->ncounts; i++) {
    const struct bp_stack_count *c = &p->counts[i];
    *total_samples += c->count;
    bool leaf = true;
    for(uint32_t s = c->stack; s < p->nstacks; s = p->stacks[s].parent) {
      uint32_t fn = p->frames[p->stacks[s].frame].func;
      if(fn >= p->nfuncs)
        continue;
      if(leaf)
        all[fn].self += c->count;
      leaf = false;
      if(seen[fn] != i + 1) {  /* count recursion once per stack */
        seen[fn] = i + 1;
        all[fn].total += c->count;
      }
    }
  }
  qsort(all, p->nfuncs, sizeof(*all), by_self_desc);
  for(; n < max && n < p->nfuncs && all[n].total; n++)
    out[n] = all[n];
out:
  free(all);
  free(seen);
  return n;
}

/* Duplicate an array of n elements (n may be 0). */
static bool dup_table(void **dst, const void *src, uint32_t n, uint32_t *cap,
                      size_t elem)
{
  *dst = malloc((size_t)(n ? n : 1) * elem);
  if(!*dst)
    return false;
  if(n)
    memcpy(*dst, src, (size_t)n * elem);
  *cap = n ? n : 1;
  return true;
}

static bp_code copy_meta(struct bp_profile_meta *d,
                         const struct bp_profile_meta *s)
{
  *d = *s;
  d->requested_event = d->event = d->fallback_reason = NULL;
  d->call_graph = d->call_graph_fallback = d->command = d->host = NULL;
  d->kernel_reason = d->off_cpu_stack_note = NULL;
  d->task_clock_ns = 0;  /* the run's: a slice's share is not known */
  d->counters = NULL;
  d->ncounters = 0;
  d->samples = 0;  /* counted again as the slice's samples are added */
  bp_code rc = bpi_profile_meta_set(&d->requested_event, s->requested_event);
  if(!rc)
    rc = bpi_profile_meta_set(&d->event, s->event);
  if(!rc)
    rc = bpi_profile_meta_set(&d->fallback_reason, s->fallback_reason);
  if(!rc)
    rc = bpi_profile_meta_set(&d->call_graph, s->call_graph);
  if(!rc)
    rc = bpi_profile_meta_set(&d->call_graph_fallback,
                              s->call_graph_fallback);
  if(!rc)
    rc = bpi_profile_meta_set(&d->command, s->command);
  if(!rc)
    rc = bpi_profile_meta_set(&d->host, s->host);
  if(!rc)
    rc = bpi_profile_meta_set(&d->kernel_reason, s->kernel_reason);
  if(!rc)
    rc = bpi_profile_meta_set(&d->off_cpu_stack_note, s->off_cpu_stack_note);
  return rc;
}

/* A slice holds only what its samples use: libraries, functions, frames
 * and stacks are copied when a kept sample (or off-CPU interval) first
 * names them, under new handles (old -> new in one map), and strings with
 * them.  A benchmark's profile so costs what its own samples name, not
 * the whole run's tables: a suite of thousands of benchmarks used to copy
 * and write every function of the run once per benchmark.  Threads keep
 * their handles (all of them are copied, their names with them). */
enum { KEEP_LIB = 1, KEEP_FUNC, KEEP_FRAME, KEEP_STACK };

struct keep {
  struct bp_profile *d;
  const struct bp_profile *s;
  struct bp_map ids;       /* (KEEP_*, old handle) -> new handle */
  uint32_t *chain;         /* a stack's entries not kept yet, leaf first */
  uint32_t chain_len, chain_cap;
};

static uint32_t keep_string(struct keep *k, uint32_t old)
{
  return bpi_strtab_intern(&k->d->strings,
                           bpi_strtab_get(&k->s->strings, old));
}

/* *out: the new handle of (kind, old); BP_NONE when old is none (not
 * below n). */
static bool kept_already(const struct keep *k, uint32_t kind, uint32_t old,
                         uint32_t n, uint32_t *out)
{
  *out = old < n ? bpi_map_get(&k->ids, kind, old) : BP_NONE;
  return old >= n || *out != BP_NONE;
}

/* Room for one more element of a slice's table. */
static bool room(void **arr, uint32_t n, uint32_t *cap, size_t elem)
{
  return n < *cap || grow_array(arr, cap, elem);
}

static bp_code keep_lib(struct keep *k, uint32_t old, uint32_t *out)
{
  struct bp_profile *d = k->d;
  if(kept_already(k, KEEP_LIB, old, k->s->nlibs, out))
    return BP_OK;
  if(!room((void **)&d->libs, d->nlibs, &d->libs_cap, sizeof(*d->libs)))
    return BPE_NOMEM;
  struct bp_lib l = k->s->libs[old];
  l.name = keep_string(k, l.name);
  l.path = keep_string(k, l.path);
  l.build_id = keep_string(k, l.build_id);
  if(l.name == BP_NONE || l.path == BP_NONE || l.build_id == BP_NONE)
    return BPE_NOMEM;
  d->libs[*out = d->nlibs++] = l;
  return bpi_map_put(&k->ids, KEEP_LIB, old, *out);
}

static bp_code keep_func(struct keep *k, uint32_t old, uint32_t *out)
{
  struct bp_profile *d = k->d;
  if(kept_already(k, KEEP_FUNC, old, k->s->nfuncs, out))
    return BP_OK;
  struct bp_func f = k->s->funcs[old];
  bp_code rc = keep_lib(k, f.lib, &f.lib);
  if(rc)
    return rc;
  f.name = keep_string(k, f.name);
  f.file = keep_string(k, f.file);
  if(f.name == BP_NONE || f.file == BP_NONE ||
     !room((void **)&d->funcs, d->nfuncs, &d->funcs_cap, sizeof(*d->funcs)))
    return BPE_NOMEM;
  d->funcs[*out = d->nfuncs++] = f;
  return bpi_map_put(&k->ids, KEEP_FUNC, old, *out);
}

static bp_code keep_frame(struct keep *k, uint32_t old, uint32_t *out)
{
  struct bp_profile *d = k->d;
  if(kept_already(k, KEEP_FRAME, old, k->s->nframes, out))
    return BP_OK;
  struct bp_frame f = k->s->frames[old];
  bp_code rc = keep_lib(k, f.lib, &f.lib);
  if(!rc)
    rc = keep_func(k, f.func, &f.func);
  if(!rc && f.outer != BP_NONE && f.outer != old)  /* a machine frame */
    rc = keep_frame(k, f.outer, &f.outer);
  if(!rc && !room((void **)&d->frames, d->nframes, &d->frames_cap,
                  sizeof(*d->frames)))
    rc = BPE_NOMEM;
  if(rc)
    return rc;
  d->frames[*out = d->nframes++] = f;
  return bpi_map_put(&k->ids, KEEP_FRAME, old, *out);
}

/* The stack and every parent of it not kept yet, outermost first, so a
 * parent's handle stays below its children's as in src. */
static bp_code keep_stack(struct keep *k, uint32_t old, uint32_t *out)
{
  struct bp_profile *d = k->d;
  uint32_t parent = BP_NONE;
  k->chain_len = 0;
  for(uint32_t s = old;
      !kept_already(k, KEEP_STACK, s, k->s->nstacks, &parent);
      s = k->s->stacks[s].parent) {
    if(!room((void **)&k->chain, k->chain_len, &k->chain_cap,
             sizeof(*k->chain)))
      return BPE_NOMEM;
    k->chain[k->chain_len++] = s;
  }
  while(k->chain_len) {
    uint32_t s = k->chain[--k->chain_len], frame;
    bp_code rc = keep_frame(k, k->s->stacks[s].frame, &frame);
    if(!rc && !room((void **)&d->stacks, d->nstacks, &d->stacks_cap,
                    sizeof(*d->stacks)))
      rc = BPE_NOMEM;
    if(rc)
      return rc;
    d->stacks[d->nstacks] = (struct bp_stack){parent, frame};
    parent = d->nstacks++;
    if(bpi_map_put(&k->ids, KEEP_STACK, s, parent))
      return BPE_NOMEM;
  }
  *out = parent;
  return BP_OK;
}

static bp_code keep_stack_cb(void *ctx, uint32_t old, uint32_t *out)
{
  return keep_stack(ctx, old, out);
}

/* Every thread, under the same handle, its names copied. */
static bp_code copy_threads(struct bp_profile *d, struct keep *k)
{
  const struct bp_profile *s = k->s;
  if(!dup_table((void **)&d->threads, s->threads, s->nthreads,
                &d->threads_cap, sizeof(*d->threads)))
    return BPE_NOMEM;
  d->nthreads = s->nthreads;
  for(uint32_t i = 0; i < d->nthreads; i++) {
    struct bp_thread *t = &d->threads[i];
    t->samples = 0;
    t->name = keep_string(k, t->name);
    t->process_name = keep_string(k, t->process_name);
    if(t->name == BP_NONE || t->process_name == BP_NONE)
      return BPE_NOMEM;
  }
  return BP_OK;
}

/* Whether t is in one of the n ranges, sorted and disjoint. */
bool bpi_profile_in_ranges(const struct bp_range *r, size_t n, uint64_t t)
{
  size_t lo = 0, hi = n;  /* the last range starting at or before t */
  while(lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if(r[mid].start_ns <= t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo && t < r[lo - 1].end_ns;
}

/* Samples of the timeline in the ranges (disjoint, sorted); threads'
 * times narrowed to them, within [t0, t1): the first start, last end. */
/* One sample of the slice into d. */
static bp_code keep_sample(struct bp_profile *d, struct keep *k,
                           struct bp_sample smp)
{
  bp_code rc = keep_stack(k, smp.stack, &smp.stack);
  if(!rc)
    rc = bpi_profile_add_sample(d, smp.thread, smp.stack, smp.time_ns,
                                smp.weight);
  if(!rc && smp.thread < d->nthreads) {
    struct bp_thread *t = &d->threads[smp.thread];
    if(smp.time_ns < t->start_ns)
      t->start_ns = smp.time_ns;
    if(smp.time_ns > t->end_ns)
      t->end_ns = smp.time_ns;
  }
  return rc;
}

/* The first of the index's times at or after t. */
static uint64_t first_at(const struct bp_timeline_index *ix, uint64_t t)
{
  uint64_t lo = 0, hi = ix->n;
  while(lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    if(ix->times[mid] < t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The samples in the ranges read straight from where they start in the
 * timeline (its times sorted: ix). */
static bp_code copy_indexed(struct bp_profile *d, struct keep *k,
                            const struct bp_range *r, size_t nr,
                            const struct bp_timeline_index *ix)
{
  const struct bp_profile *s = k->s;
  bp_code rc = bpi_profile_timeline_rewind(s);
  for(size_t i = 0; !rc && i < nr; i++) {
    uint64_t at = first_at(ix, r[i].start_ns), end = first_at(ix, r[i].end_ns);
    if(at < end && fseeko(s->timeline, (off_t)(at * sizeof(struct bp_sample)),
                          SEEK_SET))
      return BPE_IO;
    for(struct bp_sample smp; !rc && at < end; at++)
      rc = bpi_profile_timeline_next(s, &smp) ? keep_sample(d, k, smp)
                                              : BPE_IO;
  }
  /* left at the end, as a scan leaves it: samples added later (a run
   * merged repetition by repetition) are appended, not written over;
   * a run without samples has no timeline file */
  if(s->timeline && fseeko(s->timeline, 0, SEEK_END) && !rc)
    rc = BPE_IO;
  return rc;
}

static bp_code copy_samples(struct bp_profile *d, struct keep *k,
                            const struct bp_range *r, size_t nr,
                            uint64_t t0, uint64_t t1,
                            const struct bp_timeline_index *ix)
{
  const struct bp_profile *s = k->s;
  struct bp_sample smp;
  bp_code rc = BP_OK;
  for(uint32_t i = 0; i < d->nthreads; i++) {
    d->threads[i].start_ns = t1;
    d->threads[i].end_ns = t0;
  }
  if(ix && ix->sorted && ix->n == s->timeline_len)
    rc = copy_indexed(d, k, r, nr, ix);
  else {
    rc = bpi_profile_timeline_rewind(s);
    while(!rc && bpi_profile_timeline_next(s, &smp))
      if(bpi_profile_in_ranges(r, nr, smp.time_ns))
        rc = keep_sample(d, k, smp);
  }
  for(uint32_t i = 0; i < d->nthreads; i++) {
    struct bp_thread *t = &d->threads[i];
    if(t->samples)
      continue;
    /* no samples here: what of its life falls in the slice */
    t->start_ns = s->threads[i].start_ns > t0 ? s->threads[i].start_ns : t0;
    t->end_ns = s->threads[i].end_ns < t1 ? s->threads[i].end_ns : t1;
    if(t->end_ns < t->start_ns)
      t->end_ns = t->start_ns;
  }
  return rc;
}

static int by_start(const void *a, const void *b)
{
  const struct bp_range *x = a, *y = b;
  return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

bp_code bpi_profile_slice(const struct bp_profile *src, uint64_t t0,
                          uint64_t t1, struct bp_profile **out)
{
  struct bp_range r = {t0, t1};
  return bpi_profile_slice_ranges(src, &r, 1, out);
}

bp_code bpi_profile_timeline_index(const struct bp_profile *p,
                                   struct bp_timeline_index *ix)
{
  memset(ix, 0, sizeof(*ix));
  ix->sorted = true;
  if(!p->timeline_len)
    return BP_OK;
  if(p->timeline_len > SIZE_MAX / sizeof(*ix->times) ||
     !(ix->times = malloc(p->timeline_len * sizeof(*ix->times))))
    return BPE_NOMEM;
  bp_code rc = bpi_profile_timeline_rewind(p);
  struct bp_sample buf[512];
  size_t got;
  while(!rc && ix->n < p->timeline_len &&
        (got = bpi_profile_timeline_read(p, buf, BP_ARRAY_LEN(buf)))) {
    for(size_t i = 0; i < got && ix->n < p->timeline_len; i++) {
      if(ix->n && buf[i].time_ns < ix->times[ix->n - 1])
        ix->sorted = false;
      ix->times[ix->n++] = buf[i].time_ns;
    }
  }
  if(!rc && ix->n != p->timeline_len)
    rc = BPE_IO;
  if(!rc && fseeko(p->timeline, 0, SEEK_END))  /* as copy_indexed */
    rc = BPE_IO;
  if(rc)
    bpi_timeline_index_cleanup(ix);
  return rc;
}

void bpi_timeline_index_cleanup(struct bp_timeline_index *ix)
{
  free(ix->times);
  memset(ix, 0, sizeof(*ix));
}

uint64_t bpi_profile_duration_ns(const struct bp_profile_meta *m)
{
  if(m->sliced)
    return m->marked_ns;
  return m->end_ns > m->start_ns ? m->end_ns - m->start_ns : 0;
}

/* The time n sorted ranges that do not overlap cover. */
static uint64_t ranges_ns(const struct bp_range *r, size_t n)
{
  uint64_t ns = 0;
  for(size_t i = 0; i < n; i++)
    ns += r[i].end_ns > r[i].start_ns ? r[i].end_ns - r[i].start_ns : 0;
  return ns;
}

bp_code bpi_profile_slice_ranges(const struct bp_profile *src,
                                 const struct bp_range *ranges, size_t n,
                                 struct bp_profile **out)
{
  return bpi_profile_slice_indexed(src, ranges, n, NULL, out);
}

bp_code bpi_profile_slice_indexed(const struct bp_profile *src,
                                  const struct bp_range *ranges, size_t n,
                                  const struct bp_timeline_index *ix,
                                  struct bp_profile **out)
{
  struct bp_profile *d;
  struct bp_range *r = malloc((n ? n : 1) * sizeof(*r));
  if(!r)
    return BPE_NOMEM;
  memcpy(r, ranges, n * sizeof(*r));
  qsort(r, n, sizeof(*r), by_start);
  /* merge overlaps (a harness's clock may make them) so that a sample's
   * range is found by one binary search */
  size_t m = 0;
  for(size_t i = 0; i < n; i++) {
    if(m && r[i].start_ns <= r[m - 1].end_ns) {
      if(r[i].end_ns > r[m - 1].end_ns)
        r[m - 1].end_ns = r[i].end_ns;
    }
    else
      r[m++] = r[i];
  }
  n = m;
  uint64_t marked = ranges_ns(r, n);
  uint64_t t0 = n ? r[0].start_ns : src->meta.start_ns;
  uint64_t t1 = n ? r[n - 1].end_ns : t0;
  bp_code rc = bpi_profile_new(&d);
  if(!rc) {
    struct keep k = {.d = d, .s = src};
    bpi_map_init(&k.ids);
    rc = copy_meta(&d->meta, &src->meta);
    if(!rc)
      rc = copy_threads(d, &k);
    if(!rc)
      rc = copy_samples(d, &k, r, n, t0, t1, ix);
    if(!rc)
      rc = bpi_profile_off_copy(d, src, r, n, keep_stack_cb, &k);
    bpi_map_cleanup(&k.ids);
    free(k.chain);
    if(rc)
      bpi_profile_free(d);
  }
  free(r);
  if(rc)
    return rc;
  d->meta.unresolved_frames = bpi_profile_unresolved_frames(d);
  if(t0 > src->meta.start_ns)  /* the wall clock moves with the start */
    d->meta.start_epoch_ms += (double)(t0 - src->meta.start_ns) / 1e6;
  d->meta.start_ns = t0;
  d->meta.end_ns = t1;
  d->meta.sliced = true;
  d->meta.marked_ns = marked;
  *out = d;
  return BP_OK;
}

#include "bp_setup.h"
#include "converter.h"
#include "buf.h"
#include "err.h"
#include "procs.h"
#include "unwind.h"

#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>

#define KERNEL_LIB_PATH "[kernel.kallsyms]"
#define MAX_FRAMES 1024
/* No user-space address is this high (x86-64 and arm64 with 4-level
 * tables top out at 2^47/2^48; 5-level tables at 2^56). */
#define USER_ADDR_LIMIT (1ULL << 57)

enum lib_kind {
  LIB_FILE = 0,
  LIB_KERNEL,
  LIB_JIT,      /* anonymous memory of one process: perf-PID.map */
  LIB_OPAQUE,   /* [vdso], [unknown]: nothing to resolve against */
};

struct lib_info {
  uint8_t kind;
  uint32_t pid;  /* for LIB_JIT */
};


/* A callchain seen before (with the same pcs unwound from its stack copy,
 * when it had one), for a sample of the same process with the same
 * mappings: the stack it made.  Benchmarks sample the same few hundred
 * chains over and over; one hash of the raw addresses replaces a mapping
 * search and two interning lookups per frame, for both chains. */
#define CHAIN_SLOTS 4096  /* at most; it starts with CHAIN_SLOTS_MIN */
#define CHAIN_SLOTS_MIN 256
#define CHAIN_IPS_MAX (1u << 20)  /* addresses kept before starting over */
struct chain_slot {
  uint64_t hash;
  uint32_t pid, gen;
  uint32_t ips_at, nr;   /* the chain, in chain_ips */
  uint32_t npcs, status; /* then the pcs unwound, and how it ended */
  uint32_t stack;
  bool filled;           /* false: empty (the table starts zeroed) */
  bool user;             /* the sample's cpumode */
  bool dwarf;            /* stack is the DWARF chain */
};

/* chain_key.status of a chain made from LBR call stacks */
#define CHAIN_STATUS_LBR 0x4c4252u

/* The inlined calls of a machine frame: inl_frames[at .. at + n), the
 * outermost first. */
struct inl_span {
  uint32_t at, n;
};

/* Every this many unwinds, one is timed (unwind_ms). */
#define UNWIND_TIME_EVERY 8

struct bp_converter {
  struct bp_profile *p;
  struct bp_symbols *sym;
  struct bp_rec_layout layout;
  struct bp_procs procs;
  struct lib_info *libs;   /* indexed by profile lib id */
  uint32_t libs_cap;
  uint64_t bad_records;
  uint32_t nkernel;        /* kernel frames at the top of frames[] */
  /* a sample's chain made from its LBR call stack (records.h), whose
   * callers are call instructions, not return addresses */
  uint64_t lbr_ips[MAX_FRAMES];
  bool exact_callers;
  uint32_t frames[MAX_FRAMES];
  /* DWARF unwinding */
  enum bp_call_graph mode;
  bool unwinding;          /* samples carry registers and stacks */
  double unwind_timed_ms;  /* time of the unwinds that were timed */
  uint64_t unwind_timed;   /* ... how many */
  uint64_t unwinds;        /* all of them */
  struct bp_unwind *unwind;
  struct bp_map unwind_gen; /* (pid, 0) -> procs gen its modules are from */
  uint64_t pcs[MAX_FRAMES];
  uint32_t npcs;
  uint32_t dwarf_frames[MAX_FRAMES];
  /* chains (and unwound pcs) already turned into stacks */
  struct chain_slot *chains;
  uint32_t nchains;        /* slots, a power of two */
  uint32_t chain_stores;   /* chains stored so far */
  uint64_t *chain_ips;
  uint32_t chain_ips_len;
  /* inlined calls, looked up once per frame as it is made */
  struct inl_span *spans;  /* indexed by frame; n = 0: none */
  uint32_t spans_cap;
  uint32_t *inl_frames;
  uint32_t inl_len, inl_cap;
  double inline_ms;        /* time spent looking them up */
  /* off-CPU (bpi_converter_off_cpu) */
  bool off_cpu;
  const uint64_t *switch_ids;  /* the context-switches events' samples */
  size_t nswitch_ids;
  struct off_state *off;       /* per thread, indexed like p->threads */
  uint32_t off_cap;
};

/* A thread's way off the CPU and back: the stack of the context-switches
 * sample taken as it left (it comes just before the SWITCH_OUT record),
 * then the switch-out's time, until the switch-in closes the interval. */
struct off_state {
  uint32_t switch_stack;  /* BP_NONE: none since it last came back */
  uint32_t last_stack;    /* of its last on-CPU sample, for the fallback */
  uint64_t out_ns;
  bool out, preempted, has_switch_stack, has_last;
};

bp_code bpi_converter_new(struct bp_converter **out, struct bp_profile *p,
                          struct bp_symbols *sym,
                          const struct bp_rec_layout *layout,
                          enum bp_call_graph mode)
{
  struct bp_converter *c = calloc(1, sizeof(*c));
  if(!c)
    return BPE_NOMEM;
  c->p = p;
  c->sym = sym;
  c->layout = *layout;
  c->mode = mode;
  c->unwinding = mode != BP_CALL_GRAPH_FP &&
                 (layout->sample_type & PERF_SAMPLE_STACK_USER) &&
                 (layout->sample_type & PERF_SAMPLE_REGS_USER);
  bpi_procs_init(&c->procs);
  bpi_map_init(&c->unwind_gen);
  *out = c;
  return BP_OK;
}

void bpi_converter_free(struct bp_converter *c)
{
  if(!c)
    return;
  bpi_procs_cleanup(&c->procs);
  bpi_map_cleanup(&c->unwind_gen);
  bpi_unwind_free(c->unwind);
  free(c->chains);
  free(c->chain_ips);
  free(c->off);
  free(c->spans);
  free(c->inl_frames);
  free(c->libs);
  free(c);
}

void bpi_converter_process_before_exec(struct bp_converter *c, pid_t pid)
{
  if(pid > 0)
    bpi_procs_load(&c->procs, (uint32_t)pid);
}

uint64_t bpi_converter_bad_records(const struct bp_converter *c)
{
  return c->bad_records;
}

/* Remember what kind of library a profile lib id is. */
static uint32_t note_lib(struct bp_converter *c, uint32_t lib,
                         enum lib_kind kind, uint32_t pid)
{
  if(lib == BP_NONE)
    return BP_NONE;
  if(lib >= c->libs_cap) {
    uint32_t cap = c->libs_cap ? c->libs_cap : 64;
    while(cap <= lib)
      cap *= 2;
    struct lib_info *l = realloc(c->libs, cap * sizeof(*l));
    if(!l)
      return BP_NONE;
    memset(l + c->libs_cap, 0, (cap - c->libs_cap) * sizeof(*l));
    c->libs = l;
    c->libs_cap = cap;
  }
  c->libs[lib] = (struct lib_info){.kind = (uint8_t)kind, .pid = pid};
  return lib;
}

static bp_code on_mmap(struct bp_converter *c, const struct bp_rec *r)
{
  const struct bp_rec_mmap *m = &r->u.mmap;
  if(!(m->prot & 4))  /* PROT_EXEC: only code matters for stacks */
    return BP_OK;
  char bid[41] = "";
  if(m->build_id_size)
    bpi_hex_encode(m->build_id, m->build_id_size, bid);
  bp_code rc = bpi_procs_add_mapping(&c->procs, m->pid, m->start, m->len,
                                     m->pgoff, m->filename, bid);
  if(!rc && m->has_ino) {
    struct bp_mapping *pm = bpi_procs_find(&c->procs, m->pid, m->start,
                                           false);
    if(pm) {
      pm->has_ino = true;
      pm->maj = m->maj;
      pm->min = m->min;
      pm->ino = m->ino;
    }
  }
  return rc == BPE_FORMAT ? BP_OK : rc;  /* an empty mapping is harmless */
}

static bp_code on_comm(struct bp_converter *c, const struct bp_rec *r)
{
  const struct bp_rec_comm *cm = &r->u.comm;
  if(cm->exec && cm->pid == cm->tid)
    bpi_procs_exec(&c->procs, cm->pid);
  return bpi_procs_set_comm(&c->procs, cm->tid, cm->comm);
}

static struct off_state *off_state(struct bp_converter *c, uint32_t th);

/* A new thread starts on the CPU with nothing sampled: a tid the kernel
 * reused must not close the interval, or take the stacks, of the thread
 * that had it before. */
static bool reset_off_state(struct bp_converter *c, uint32_t th)
{
  struct off_state *o = off_state(c, th);
  if(!o)
    return false;
  *o = (struct off_state){.switch_stack = BP_NONE, .last_stack = BP_NONE};
  return true;
}

static bp_code on_task(struct bp_converter *c, const struct bp_rec *r)
{
  const struct bp_rec_task *t = &r->u.task;
  uint32_t th = bpi_profile_thread(c->p, t->pid, t->tid);
  if(th == BP_NONE)
    return BPE_NOMEM;
  struct bp_thread *thr = &c->p->threads[th];
  if(r->type == BP_REC_FORK) {
    if(!thr->start_ns || t->time < thr->start_ns)
      thr->start_ns = t->time;
    if(c->off_cpu && !reset_off_state(c, th))
      return BPE_NOMEM;
    /* a new thread or process is called what its creator was called until
     * it renames itself or execs (no COMM record says so) */
    const char *name = bpi_procs_comm(&c->procs, t->ptid);
    if(name && !bpi_procs_comm(&c->procs, t->tid)) {
      bp_code rc = bpi_procs_set_comm(&c->procs, t->tid, name);
      if(rc)
        return rc;
    }
    return bpi_procs_fork(&c->procs, t->ppid, t->pid);
  }
  if(t->time > thr->end_ns)
    thr->end_ns = t->time;
  return BP_OK;
}

/* Fill m's file offset -> ELF vaddr delta on first use. */
static void map_delta(struct bp_converter *c, struct bp_mapping *m)
{
  if(m->delta_state == 0) {
    m->delta_state = 2;
    if(m->kind == BP_MAP_FILE &&
       bpi_symbols_vaddr_delta(c->sym, bpi_procs_path(&c->procs, m),
                               m->pgoff, &m->delta) == BP_OK)
      m->delta_state = 1;
  }
}

/* Whether the file at path is no longer the one the kernel mapped: the
 * same device (through overlayfs it is not, and then nothing can be
 * told) but another inode.  A program replaced by rename while it ran
 * would otherwise give its build id and names to the frames of the one
 * that ran. */
static bool file_replaced(const struct bp_mapping *m, const char *path)
{
  struct stat st;
  if(!m->has_ino || stat(path, &st))
    return false;
  return st.st_dev == makedev(m->maj, m->min) && st.st_ino != m->ino;
}

static bool resolve_frame(struct bp_converter *c, const struct bp_frame *f,
                          struct bp_sym *sym);
static double ms_between(const struct timespec *a, const struct timespec *b);

/* Room for frame in c->spans (new entries: no inlined calls). */
static bool spans_room(struct bp_converter *c, uint32_t frame)
{
  if(frame < c->spans_cap)
    return true;
  uint32_t cap = c->spans_cap ? c->spans_cap : 256;
  while(cap <= frame)
    cap *= 2;
  struct inl_span *sp = realloc(c->spans, cap * sizeof(*sp));
  if(!sp)
    return false;
  memset(sp + c->spans_cap, 0, (cap - c->spans_cap) * sizeof(*sp));
  c->spans = sp;
  c->spans_cap = cap;
  return true;
}

/* Look up the calls inlined at a new machine frame of a file and make a
 * frame of each (once per frame: the address decides them).  Without
 * memory the frame just keeps none. */
static void note_inlines(struct bp_converter *c, uint32_t frame)
{
  struct bp_profile *p = c->p;
  struct bp_sym sym;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  if(resolve_frame(c, &p->frames[frame], &sym) && sym.ninlines &&
     spans_room(c, frame)) {
    uint32_t n = sym.ninlines, lib = p->frames[frame].lib;
    if(c->inl_len + n > c->inl_cap) {
      uint32_t cap = c->inl_cap ? c->inl_cap : 256;
      while(cap < c->inl_len + n)
        cap *= 2;
      uint32_t *f = realloc(c->inl_frames, cap * sizeof(*f));
      if(!f)
        n = 0;
      else {
        c->inl_frames = f;
        c->inl_cap = cap;
      }
    }
    uint32_t at = c->inl_len, made = 0;
    for(uint32_t d = 1; d <= n; d++) {  /* outermost first */
      const struct bp_sym_inline *in = &sym.inlines[n - d];
      uint32_t fn = bpi_profile_func(p, in->name, in->file, lib,
                                     in->start_line);
      uint32_t f = fn == BP_NONE ? BP_NONE :
                   bpi_profile_inline_frame(p, frame, (uint8_t)d, fn,
                                            in->line);
      if(f == BP_NONE)
        break;
      c->inl_frames[at + made++] = f;
    }
    c->inl_len += made;
    c->spans[frame] = (struct inl_span){.at = at, .n = made};
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  c->inline_ms += ms_between(&t0, &t1);
}

/* stack with frame, then the calls inlined at it, pushed on it; BP_NONE
 * when out of memory. */
static uint32_t push_frame(struct bp_converter *c, uint32_t stack,
                           uint32_t frame)
{
  stack = bpi_profile_stack(c->p, stack, frame);
  if(frame < c->spans_cap)
    for(uint32_t i = 0; i < c->spans[frame].n && stack != BP_NONE; i++)
      stack = bpi_profile_stack(c->p, stack,
                                c->inl_frames[c->spans[frame].at + i]);
  return stack;
}

/* The library and in-library address of a user-space address of pid. */
static uint32_t user_frame(struct bp_converter *c, uint32_t pid,
                           uint64_t addr)
{
  struct bp_profile *p = c->p;
  struct bp_mapping *m = bpi_procs_find(&c->procs, pid, addr, true);
  if(!m) {
    uint32_t lib = note_lib(c, bpi_profile_lib(p, BP_UNMAPPED, ""),
                            LIB_OPAQUE, 0);
    return lib == BP_NONE ? BP_NONE
                          : bpi_profile_frame(p, lib, addr, BP_FRAME_USER);
  }
  if(m->kind == BP_MAP_ANON) {
    char path[64];
    snprintf(path, sizeof(path), "/tmp/perf-%u.map", pid);
    uint32_t lib = note_lib(c, bpi_profile_lib(p, path, ""), LIB_JIT, pid);
    return lib == BP_NONE ? BP_NONE
                          : bpi_profile_frame(p, lib, addr, BP_FRAME_USER);
  }
  const char *path = bpi_procs_path(&c->procs, m);
  if(m->lib == BP_NONE) {
    /* without a build id from the kernel, ours is read from the file now:
     * make sure it is still the file that was mapped */
    if(m->kind == BP_MAP_FILE && !m->build_id[0] && file_replaced(m, path))
      m->kind = BP_MAP_SPECIAL;
    if(m->kind == BP_MAP_FILE) {
      if(!m->build_id[0])
        bpi_symbols_build_id(c->sym, path, m->build_id, sizeof(m->build_id));
      m->lib = note_lib(c, bpi_profile_lib(p, path, m->build_id), LIB_FILE,
                        0);
    }
    else {
      m->lib = note_lib(c, bpi_profile_lib(p, path, ""), LIB_OPAQUE, 0);
    }
    if(m->lib == BP_NONE)
      return BP_NONE;
  }
  map_delta(c, m);
  uint64_t off = addr - m->start + m->pgoff;
  uint64_t vaddr = m->delta_state == 1 ? off + (uint64_t)m->delta
                                       : addr - m->start;
  uint32_t before = p->nframes;
  uint32_t f = bpi_profile_frame(p, m->lib, vaddr, BP_FRAME_USER);
  if(p->nframes > before && c->libs[m->lib].kind == LIB_FILE)
    note_inlines(c, f);
  return f;
}

static uint32_t kernel_frame(struct bp_converter *c, uint64_t addr)
{
  uint32_t lib = note_lib(c, bpi_profile_lib(c->p, KERNEL_LIB_PATH, ""),
                          LIB_KERNEL, 0);
  return lib == BP_NONE ? BP_NONE
                        : bpi_profile_frame(c->p, lib, addr, BP_FRAME_KERNEL);
}

/* Whether the user-space return address ip of a callchain, the same as
 * the one before it (prev), is where the kernel's frame-pointer walk went
 * round in a loop.  The walk does not check that each frame lies above
 * the last: a frame pointer that points at itself (a register that is no
 * frame pointer, such as glibc's thread descriptor, whose first word is
 * its own address, in a syscall made by code built without frame
 * pointers) gives the word after it as a return address again and again,
 * up to the depth limit.  Recursion repeats a return address too, but
 * one in code; a repeated one in no executable mapping is the loop. */
static bool fp_walk_loops(struct bp_converter *c, uint32_t pid, uint64_t ip,
                          uint64_t prev)
{
  return ip == prev && !bpi_procs_find(&c->procs, pid, ip, true);
}

/* Frames of a sample, leaf first; returns how many. */
static uint32_t collect_frames(struct bp_converter *c, const struct bp_rec *r)
{
  const struct bp_rec_sample *s = &r->u.sample;
  uint32_t pid = r->sid.pid, n = 0;
  bool kernel = !s->user;
  bool first_of_context = true;
  /* the last user return address made a frame (0: none, or the leaf),
   * and whether the walk went round in a loop: nothing from the loop on
   * is a frame */
  uint64_t prev_ret = 0;
  bool looped = false;
  c->nkernel = 0;
  if(s->nr == 0 && s->ip) {
    uint32_t f = kernel ? kernel_frame(c, s->ip) : user_frame(c, pid, s->ip);
    if(f != BP_NONE)
      c->frames[n++] = f;
    c->nkernel = kernel ? n : 0;
    return n;
  }
  for(uint64_t i = 0; i < s->nr && n < MAX_FRAMES; i++) {
    uint64_t ip = s->ips[i];
    if(ip >= (uint64_t)PERF_CONTEXT_MAX) {
      kernel = ip == (uint64_t)PERF_CONTEXT_KERNEL;
      first_of_context = true;
      continue;
    }
    /* zero and non-canonical user addresses are what a frame-pointer walk
     * reads past the last real frame: garbage, not code */
    if(ip == 0 || (!kernel && ip >= USER_ADDR_LIMIT) || (!kernel && looped))
      continue;
    if(prev_ret && fp_walk_loops(c, pid, ip, prev_ret)) {
      looped = true;
      n--;  /* the first time round was the loop's too */
      continue;
    }
    /* every frame but the first is a return address: the call is before */
    uint64_t at = first_of_context || (c->exact_callers && !kernel)
                    ? ip : ip - 1;
    first_of_context = false;
    uint32_t f = kernel ? kernel_frame(c, at) : user_frame(c, pid, at);
    prev_ret = !kernel && at != ip && f != BP_NONE ? ip : 0;
    if(f != BP_NONE) {
      c->frames[n++] = f;
      if(kernel && n == c->nkernel + 1)
        c->nkernel = n;
    }
  }
  return n;
}

static double ms_between(const struct timespec *a, const struct timespec *b)
{
  return (double)(b->tv_sec - a->tv_sec) * 1e3 +
         (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

/* Report pid's file mappings to the unwinder, at their runtime addresses,
 * unless it has them as they are now already (a process that mapped or
 * exec'd since its last sample gets a new set). */
static bp_code unwind_proc(struct bp_converter *c, uint32_t pid)
{
  struct bp_proc *pr = bpi_procs_get(&c->procs, pid);
  if(!pr)
    return BPE_NOMEM;
  uint32_t gen = bpi_map_get(&c->unwind_gen, pid, 0);
  if(gen == pr->gen && bpi_unwind_has_proc(c->unwind, pid))
    return BP_OK;
  struct bp_unwind_module *mods = calloc(pr->nmaps + 1, sizeof(*mods));
  if(!mods)
    return BPE_NOMEM;
  uint32_t n = 0;
  for(uint32_t i = 0; i < pr->nmaps; i++) {
    struct bp_mapping *m = &pr->maps[i];
    if(m->kind != BP_MAP_FILE)
      continue;
    map_delta(c, m);
    if(m->delta_state != 1)
      continue;
    mods[n++] = (struct bp_unwind_module){
      .start = m->start, .end = m->end, .path = bpi_procs_path(&c->procs, m),
      .bias = m->start - m->pgoff - (uint64_t)m->delta,
    };
  }
  bp_code rc = bpi_unwind_add_proc(c->unwind, pid, mods, n);
  free(mods);
  if(!rc && bpi_map_put(&c->unwind_gen, pid, 0, pr->gen))
    rc = BPE_NOMEM;
  return rc;
}

/* Unwind a sample with registers and a stack copy into c->pcs (leaf
 * first, c->npcs of them, which is 0 on entry), from where they lie in
 * the record; *unwound: whether it had them.  Counts and times the
 * unwinding. */
static bp_code unwind_pcs(struct bp_converter *c, const struct bp_rec *r,
                          bool *unwound, enum bp_unwind_status *st)
{
  const struct bp_rec_sample *s = &r->u.sample;
  struct bp_profile *p = c->p;
  *unwound = false;
  if(!s->regs_abi || !s->nregs || !s->stack_dyn_size ||
     s->stack_dyn_size > s->stack_size)
    return BP_OK;
  bp_code rc = BP_OK;
  if(!c->unwind)
    rc = bpi_unwind_new(&c->unwind);
  if(!rc)
    rc = unwind_proc(c, r->sid.pid);
  if(rc)
    return rc;
  struct bp_unwind_sample us = {
    .pid = r->sid.pid, .tid = r->sid.tid,
    .regs_mask = c->layout.sample_regs_user, .regs = s->regs,
    .nregs = s->nregs, .stack = s->stack, .stack_len = s->stack_dyn_size,
  };
  /* two clock reads per sample were a few percent of the time after the
   * run: one unwind in UNWIND_TIME_EVERY is timed, and unwind_ms is their
   * time scaled to all of them */
  bool timed = c->unwinds++ % UNWIND_TIME_EVERY == 0;  /* the first is */
  struct timespec t0, t1;
  if(timed)
    clock_gettime(CLOCK_MONOTONIC, &t0);
  *st = bpi_unwind_sample(c->unwind, &us, c->pcs, MAX_FRAMES, &c->npcs);
  p->meta.unwind_samples++;
  if(timed) {
    clock_gettime(CLOCK_MONOTONIC, &t1);
    c->unwind_timed_ms += ms_between(&t0, &t1);
    c->unwind_timed++;
  }
  p->meta.unwind_ms = c->unwind_timed_ms *
                      ((double)c->unwinds / (double)c->unwind_timed);
  if(*st == BP_UNWIND_TRUNCATED)
    p->meta.unwind_truncated++;
  else if(*st == BP_UNWIND_FAILED)
    p->meta.unwind_failed++;
  *unwound = true;
  return BP_OK;
}

/* The frames of c->pcs into c->dwarf_frames (leaf first, up to the first
 * address that is no code); returns how many. */
static uint32_t dwarf_frames(struct bp_converter *c, uint32_t pid)
{
  uint32_t n = 0;
  for(uint32_t i = 0; i < c->npcs; i++) {
    if(c->pcs[i] == 0 || c->pcs[i] >= USER_ADDR_LIMIT)
      break;
    uint32_t f = user_frame(c, pid, c->pcs[i]);
    if(f != BP_NONE)
      c->dwarf_frames[n++] = f;
  }
  return n;
}

/* After unwinding (st): the sample's DWARF chain, under its kernel frames,
 * in place of the frame-pointer chain *stack when it is complete or at
 * least as long (auto), or always (dwarf); *used says whether it was.
 * nuser: user frames of the frame-pointer chain. */
static bp_code dwarf_stack(struct bp_converter *c, const struct bp_rec *r,
                           enum bp_unwind_status st, uint32_t nuser,
                           uint32_t *stack, bool *used)
{
  struct bp_profile *p = c->p;
  uint32_t n = dwarf_frames(c, r->sid.pid);
  *used = false;
  if(!n || (c->mode != BP_CALL_GRAPH_DWARF && st != BP_UNWIND_COMPLETE &&
            n < nuser))
    return BP_OK;
  uint32_t st_id = BP_NONE;
  for(uint32_t i = n; i-- > 0;) {
    st_id = push_frame(c, st_id, c->dwarf_frames[i]);
    if(st_id == BP_NONE)
      return BPE_NOMEM;
  }
  for(uint32_t i = c->nkernel; i-- > 0;) {
    st_id = bpi_profile_stack(p, st_id, c->frames[i]);
    if(st_id == BP_NONE)
      return BPE_NOMEM;
  }
  *stack = st_id;
  *used = true;
  return BP_OK;
}

/* What a sample's stack follows from: its process with its mappings, its
 * callchain and, when it was unwound, the pcs and how the unwinding
 * ended.  Two samples with the same key get the same stack. */
struct chain_key {
  uint32_t pid, gen;
  const uint64_t *ips, *pcs;
  uint32_t nr, npcs, status;
  bool user;
  uint64_t hash;
};

/* false when the sample's stack is not worth keeping: no callchain, an
 * unknown process or a chain too long */
static bool chain_key_of(struct bp_converter *c, const struct bp_rec *r,
                         enum bp_unwind_status st, struct chain_key *k)
{
  const struct bp_rec_sample *s = &r->u.sample;
  struct bp_proc *pr = bpi_procs_get(&c->procs, r->sid.pid);
  if(!pr || s->nr == 0 || s->nr > MAX_FRAMES)
    return false;
  *k = (struct chain_key){
    .pid = r->sid.pid, .gen = pr->gen, .ips = s->ips, .pcs = c->pcs,
    .nr = (uint32_t)s->nr, .npcs = c->npcs, .status = c->npcs ? st : 0,
    .user = s->user,
  };
  k->hash = bpi_hash_u64s(s->ips, s->nr) ^
            ((uint64_t)k->pid * 0x9e3779b97f4a7c15ULL) ^ k->user;
  if(k->npcs)
    k->hash ^= (bpi_hash_u64s(c->pcs, k->npcs) +
                k->status) * 0xc2b2ae3d27d4eb4fULL;
  return true;
}

/* Twice the slots, the chains kept moved to theirs (one of two that meet
 * is dropped: a cache).  Unchanged when out of memory. */
static void chains_grow(struct bp_converter *c)
{
  uint32_t n = c->nchains * 2;
  struct chain_slot *t = calloc(n, sizeof(*t));
  if(!t)
    return;
  for(uint32_t i = 0; i < c->nchains; i++) {
    struct chain_slot *to = &t[c->chains[i].hash & (n - 1)];
    if(c->chains[i].filled && !to->filled)
      *to = c->chains[i];
  }
  free(c->chains);
  c->chains = t;
  c->nchains = n;
}

/* The slot for k; *hit when it holds k's stack already.  NULL without a
 * cache (no memory: every sample takes the long way). */
static struct chain_slot *chain_lookup(struct bp_converter *c,
                                       const struct chain_key *k, bool *hit)
{
  *hit = false;
  if(!c->chains) {
    /* small at first, grown as chains come: the whole table (CHAIN_SLOTS,
     * 200 KB) was cleared for every recording, and its pages faulted in,
     * though a short run stores a few dozen chains */
    c->chains = calloc(CHAIN_SLOTS_MIN, sizeof(*c->chains));
    c->nchains = CHAIN_SLOTS_MIN;
    c->chain_ips = malloc(CHAIN_IPS_MAX * sizeof(*c->chain_ips));
    if(!c->chains || !c->chain_ips) {
      free(c->chains);
      free(c->chain_ips);
      c->chains = NULL;
      c->chain_ips = NULL;
      return NULL;
    }
  }
  if(c->chain_stores >= c->nchains / 2 && c->nchains < CHAIN_SLOTS)
    chains_grow(c);
  struct chain_slot *slot = &c->chains[k->hash & (c->nchains - 1)];
  const uint64_t *kept = c->chain_ips + slot->ips_at;
  *hit = slot->filled && slot->hash == k->hash &&
         slot->pid == k->pid && slot->gen == k->gen && slot->nr == k->nr &&
         slot->npcs == k->npcs && slot->status == k->status &&
         slot->user == k->user &&
         !memcmp(kept, k->ips, k->nr * sizeof(*k->ips)) &&
         !memcmp(kept + k->nr, k->pcs, k->npcs * sizeof(*k->pcs));
  if(!*hit) {
    slot->hash = k->hash;
    slot->pid = k->pid;
    slot->gen = k->gen;
    slot->nr = k->nr;
    slot->npcs = k->npcs;
    slot->status = k->status;
    slot->user = k->user;
    slot->filled = false;  /* filled by chain_store() */
  }
  return slot;
}

/* Remember the stack a slot's key made, and whether it is the DWARF one. */
static void chain_store(struct bp_converter *c, struct chain_slot *slot,
                        const struct chain_key *k, uint32_t stack, bool dwarf)
{
  if(c->chain_ips_len + k->nr + k->npcs > CHAIN_IPS_MAX) {
    /* full: forget every chain rather than grow without bound */
    for(uint32_t i = 0; i < c->nchains; i++)
      c->chains[i].filled = false;
    c->chain_ips_len = 0;
  }
  uint64_t *at = c->chain_ips + c->chain_ips_len;
  memcpy(at, k->ips, k->nr * sizeof(*k->ips));
  memcpy(at + k->nr, k->pcs, k->npcs * sizeof(*k->pcs));
  slot->ips_at = c->chain_ips_len;
  c->chain_ips_len += k->nr + k->npcs;
  slot->stack = stack;
  slot->filled = true;
  slot->dwarf = dwarf;
  c->chain_stores++;
}

/* The sample's stack the long way: every frame looked up and interned,
 * the frame-pointer chain, then the DWARF one when it was unwound. */
static bp_code build_stack(struct bp_converter *c, const struct bp_rec *r,
                           bool unwound, enum bp_unwind_status st,
                           uint32_t *stack, bool *dwarf)
{
  uint32_t n = collect_frames(c, r);
  *stack = BP_NONE;
  *dwarf = false;
  for(uint32_t i = n; i-- > 0;) {  /* stacks are built root first */
    *stack = push_frame(c, *stack, c->frames[i]);
    if(*stack == BP_NONE)
      return BPE_NOMEM;
  }
  return unwound ? dwarf_stack(c, r, st, n - c->nkernel, stack, dwarf)
                 : BP_OK;
}

/* The thread of a record, its first and last times widened to it. */
static uint32_t record_thread(struct bp_converter *c, const struct bp_rec *r)
{
  struct bp_profile *p = c->p;
  uint32_t th = bpi_profile_thread(p, r->sid.pid, r->sid.tid);
  if(th == BP_NONE)
    return BP_NONE;
  struct bp_thread *thr = &p->threads[th];
  if(!thr->start_ns || r->sid.time < thr->start_ns)
    thr->start_ns = r->sid.time;
  if(r->sid.time > thr->end_ns)
    thr->end_ns = r->sid.time;
  return th;
}

/* The stack of a sample: unwound, from its LBR call stack or callchain,
 * or a chain seen before. */
static bp_code sample_stack(struct bp_converter *c, const struct bp_rec *r,
                            uint32_t *stack_out)
{
  struct bp_profile *p = c->p;
  bool unwound = false, hit = false, dwarf = false;
  enum bp_unwind_status st = BP_UNWIND_COMPLETE;
  c->npcs = 0;
  if(c->unwinding) {
    bp_code rc = unwind_pcs(c, r, &unwound, &st);
    if(rc)
      return rc;
  }
  /* LBR call stacks: the chain perf makes of them replaces the
   * callchain; it is cached apart from callchains (a status of its own) */
  struct bp_rec lbr;
  size_t nlbr = bpi_records_lbr_chain(&r->u.sample, c->lbr_ips, MAX_FRAMES);
  c->exact_callers = nlbr > 0;
  if(nlbr) {
    lbr = *r;
    lbr.u.sample.ips = c->lbr_ips;
    lbr.u.sample.nr = nlbr;
    r = &lbr;
  }
  /* the same chain (and the same pcs) as a sample before: its stack */
  struct chain_key key;
  bool keyed = chain_key_of(c, r, st, &key);
  if(keyed && nlbr)
    key.status = CHAIN_STATUS_LBR;
  struct chain_slot *slot = keyed ? chain_lookup(c, &key, &hit) : NULL;
  uint32_t stack;
  if(hit) {
    stack = slot->stack;
    dwarf = slot->dwarf;
  }
  else {
    bp_code rc = build_stack(c, r, unwound, st, &stack, &dwarf);
    if(rc)
      return rc;
    if(slot && stack != BP_NONE)
      chain_store(c, slot, &key, stack, dwarf);
  }
  if(dwarf)
    p->meta.dwarf_samples++;
  *stack_out = stack;
  return BP_OK;
}

/* The off-CPU state of thread th, grown to hold it. */
static struct off_state *off_state(struct bp_converter *c, uint32_t th)
{
  if(th >= c->off_cap) {
    uint32_t cap = c->off_cap ? c->off_cap : 64;
    while(cap <= th)
      cap *= 2;
    struct off_state *n = realloc(c->off, cap * sizeof(*n));
    if(!n)
      return NULL;
    for(uint32_t i = c->off_cap; i < cap; i++)
      n[i] = (struct off_state){.switch_stack = BP_NONE,
                                .last_stack = BP_NONE};
    c->off = n;
    c->off_cap = cap;
  }
  return &c->off[th];
}

static bool is_switch_sample(const struct bp_converter *c,
                             const struct bp_rec *r)
{
  for(size_t i = 0; i < c->nswitch_ids; i++)
    if(r->sid.id == c->switch_ids[i])
      return true;
  return false;
}

/* The user-space address a sample interrupted: its ip in user mode, else
 * the first address of its callchain's user part; 0 when it has none. */
static uint64_t user_leaf(const struct bp_rec_sample *s)
{
  if(s->user)
    return s->ip;
  for(uint64_t i = 0; i + 1 < s->nr; i++)
    if(s->ips[i] == (uint64_t)PERF_CONTEXT_USER)
      return s->ips[i + 1];
  return 0;
}

/* Until its execve returns, a process's samples are of a thread inside
 * the syscall, called from the image it replaces (whose mappings procs
 * keeps for them); the first sample in user mode, or whose user-space
 * address is in the new image, says it has returned, and the old image
 * goes. */
static void note_exec_return(struct bp_converter *c, const struct bp_rec *r)
{
  uint32_t pid = r->sid.pid;
  if(!bpi_procs_execing(&c->procs, pid))
    return;
  const struct bp_rec_sample *s = &r->u.sample;
  uint64_t ip = user_leaf(s);
  if(s->user || (ip && bpi_procs_find_current(&c->procs, pid, ip)))
    bpi_procs_exec_returned(&c->procs, pid);
}

static bp_code on_sample(struct bp_converter *c, const struct bp_rec *r)
{
  uint32_t th = record_thread(c, r);
  if(th == BP_NONE)
    return BPE_NOMEM;
  note_exec_return(c, r);
  uint32_t stack;
  bool switched = c->off_cpu && is_switch_sample(c, r);
  /* a context-switches sample is no profile sample: the unwinding
   * counts (summary.json's, beside "samples") leave it out */
  struct bp_profile_meta *m = &c->p->meta;
  uint64_t counts[4] = {m->unwind_samples, m->dwarf_samples,
                        m->unwind_truncated, m->unwind_failed};
  bp_code rc = sample_stack(c, r, &stack);
  if(switched) {
    m->unwind_samples = counts[0];
    m->dwarf_samples = counts[1];
    m->unwind_truncated = counts[2];
    m->unwind_failed = counts[3];
  }
  if(!rc && c->off_cpu) {
    struct off_state *o = off_state(c, th);
    if(!o)
      return BPE_NOMEM;
    if(switched) {
      o->switch_stack = stack;
      o->has_switch_stack = true;
    }
    else {
      o->last_stack = stack;
      o->has_last = true;
    }
  }
  if(rc || switched)
    return rc;
  return bpi_profile_add_sample(c->p, th, stack, r->sid.time,
                                r->u.sample.period);
}

/* A context switch: a switch-out opens the thread's interval, the next
 * switch-in closes it, charged to the stack sampled as it left (or,
 * without those samples, to its last on-CPU sample's stack).  The last
 * switch-out of a thread that exits is never closed: not a wait. */
static bp_code on_switch(struct bp_converter *c, const struct bp_rec *r)
{
  if(!c->off_cpu || !r->sid.has_time)
    return BP_OK;
  uint32_t th = record_thread(c, r);
  struct off_state *o = th == BP_NONE ? NULL : off_state(c, th);
  if(!o)
    return BPE_NOMEM;
  if(r->misc & PERF_RECORD_MISC_SWITCH_OUT) {
    o->out = true;
    o->out_ns = r->sid.time;
    o->preempted = r->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT;
    return BP_OK;
  }
  if(!o->out)
    return BP_OK;  /* its first switch-in: it was never out */
  uint32_t stack = o->has_switch_stack ? o->switch_stack
                   : !c->nswitch_ids && o->has_last ? o->last_stack
                   : BP_NONE;
  uint64_t dur = r->sid.time > o->out_ns ? r->sid.time - o->out_ns : 0;
  o->out = false;
  o->has_switch_stack = false;
  return bpi_profile_add_off(c->p, th, stack, o->out_ns, dur, o->preempted);
}

void bpi_converter_off_cpu(struct bp_converter *c, const uint64_t *switch_ids,
                           size_t n)
{
  c->off_cpu = true;
  c->switch_ids = switch_ids;
  c->nswitch_ids = n;
  c->p->meta.off_cpu = true;
}

bp_code bpi_converter_record(void *ctx, const void *data, size_t len)
{
  struct bp_converter *c = ctx;
  struct bp_rec r;
  if(bpi_records_parse(&c->layout, data, len, &r)) {
    c->bad_records++;
    return BP_OK;
  }
  switch(r.type) {
  case BP_REC_SAMPLE:
    return on_sample(c, &r);
  case BP_REC_MMAP:
    return on_mmap(c, &r);
  case BP_REC_COMM:
    return on_comm(c, &r);
  case BP_REC_FORK:
  case BP_REC_EXIT:
    return on_task(c, &r);
  case BP_REC_LOST:
    c->p->meta.lost_records += r.u.lost.lost;
    c->p->meta.lost_events++;
    return BP_OK;
  case BP_REC_THROTTLE:
    c->p->meta.throttled++;
    return BP_OK;
  case BP_REC_SWITCH:
    return on_switch(c, &r);
  case BP_REC_UNTHROTTLE:
  case BP_REC_OTHER:
    break;
  }
  return BP_OK;
}

static bool resolve_frame(struct bp_converter *c, const struct bp_frame *f,
                          struct bp_sym *sym)
{
  const struct bp_profile *p = c->p;
  const struct lib_info *li = f->lib < c->libs_cap ? &c->libs[f->lib] : NULL;
  if(!li)
    return false;
  const struct bp_lib *lib = &p->libs[f->lib];
  switch(li->kind) {
  case LIB_FILE:
    return bpi_symbols_resolve(c->sym, bpi_profile_str(p, lib->path),
                               bpi_profile_str(p, lib->build_id), f->addr,
                               sym);
  case LIB_KERNEL:
    return bpi_symbols_resolve_kernel(c->sym, f->addr, sym);
  case LIB_JIT:
    return bpi_symbols_resolve_jit(c->sym, (pid_t)li->pid, f->addr, sym);
  default:
    return false;
  }
}

/* The function of a frame no symbol names: BP_UNMAPPED in no mapping,
 * BP_ANON_CODE in anonymous memory, else its address in hex (in a file or
 * [vdso], the same in every run). */
static const char *unnamed_func(const struct bp_converter *c,
                                const struct bp_frame *f, char *buf,
                                size_t len)
{
  const struct lib_info *li = f->lib < c->libs_cap ? &c->libs[f->lib] : NULL;
  if(li && li->kind == LIB_JIT)
    return BP_ANON_CODE;
  if(li && li->kind == LIB_OPAQUE &&
     !strcmp(bpi_profile_str(c->p, c->p->libs[f->lib].path), BP_UNMAPPED))
    return BP_UNMAPPED;
  snprintf(buf, len, "0x%llx", (unsigned long long)f->addr);
  return buf;
}

static bp_code symbolize(struct bp_converter *c)
{
  struct bp_profile *p = c->p;
  for(uint32_t i = 0; i < p->nframes; i++) {
    struct bp_sym sym;
    uint32_t lib = p->frames[i].lib;
    uint32_t fn;
    if(p->frames[i].inline_depth)
      continue;  /* named when it was made */
    if(resolve_frame(c, &p->frames[i], &sym)) {
      fn = bpi_profile_func(p, sym.name, sym.file, lib, sym.start_line);
      if(fn == BP_NONE)
        return BPE_NOMEM;
      p->frames[i].line = sym.line;
      if(sym.unnamed)  /* a range of stripped code: still no symbol */
        p->funcs[fn].unresolved = true;
    }
    else {
      char buf[32];
      fn = bpi_profile_func(p, unnamed_func(c, &p->frames[i], buf,
                                            sizeof(buf)), "", lib, 0);
      if(fn == BP_NONE)
        return BPE_NOMEM;
      p->funcs[fn].unresolved = true;
    }
    p->frames[i].func = fn;
  }
  return BP_OK;
}

static bp_code name_threads(struct bp_converter *c)
{
  struct bp_profile *p = c->p;
  for(uint32_t i = 0; i < p->nthreads; i++) {
    struct bp_thread *t = &p->threads[i];
    char fallback[32];
    const char *name = bpi_procs_comm(&c->procs, t->tid);
    const char *proc = bpi_procs_comm(&c->procs, t->pid);
    snprintf(fallback, sizeof(fallback), "%u", t->pid);
    t->name = bpi_profile_string(p, name ? name : (proc ? proc : fallback));
    t->process_name = bpi_profile_string(p, proc ? proc : fallback);
    if(t->name == BP_NONE || t->process_name == BP_NONE)
      return BPE_NOMEM;
  }
  return BP_OK;
}


bp_code bpi_converter_finish(struct bp_converter *c, struct bp_err *err)
{
  struct timespec t0, t1;
  bpi_unwind_free(c->unwind);  /* every sample is in: its caches can go */
  c->unwind = NULL;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  bp_code rc = symbolize(c);
  if(!rc)
    rc = name_threads(c);
  c->p->meta.unresolved_frames = bpi_profile_unresolved_frames(c->p);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  c->p->meta.symbolize_ms = ms_between(&t0, &t1) + c->inline_ms;
  if(rc)
    return bpi_err_set(err, rc, 0, "symbolizing the profile");
  return BP_OK;
}

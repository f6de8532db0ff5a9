/* Folded stacks: one line per distinct (process name, stack), root first,
 * "proc;main;work;leaf 123": samples in profile.folded, microseconds off
 * CPU in profile.offcpu.folded (--off-cpu; the time a thread was
 * preempted under a last frame "[preempted]", the rest is time it
 * blocked).  Kernel frames are "name_[k]" in both (flamegraph.pl colours
 * them so): compare tells the kernel's functions by it, and the samples
 * an interrupt took from the ones a system call did.  flamegraph.pl, inferno, speedscope and the
 * Firefox Profiler read it.  Lines are merged by their text (threads of one
 * process, or processes of one name, add up) and sorted, so equal profiles
 * give equal files.  Where kernel time was not sampled, a last line says
 * how much CPU time is in no sample (add_unsampled). */
#include "bp_setup.h"
#include "export.h"
#include "err.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct line {
  size_t off;        /* of the stack text in the text buffer */
  const char *text;  /* set once the buffer stops moving */
  uint64_t count;
};

/* Process name of a thread; "[pid N]" when the comm is unknown, so a line
 * never starts with an empty frame. */
static void add_process(struct bp_buf *b, const struct bp_profile *p,
                        const struct bp_thread *t)
{
  const char *name = bpi_profile_str(p, t->process_name);
  if(!*name)
    name = bpi_profile_str(p, t->name);
  if(*name)
    bpi_profile_clean_name(b, name, ';');
  else
    bpi_buf_printf(b, "[pid %" PRIu32 "]", t->pid);
}

/* Append ";frame" for each frame of stack, root first, kernel frames
 * marked "_[k]" (flamegraph.pl's convention).  path is scratch space of
 * at least the stack's depth. */
static void add_frames(struct bp_buf *b, const struct bp_profile *p,
                       uint32_t stack, uint32_t *path)
{
  char tmp[64];
  uint32_t n = 0;
  for(uint32_t s = stack; s < p->nstacks; s = p->stacks[s].parent)
    path[n++] = p->stacks[s].frame;
  while(n--) {
    bpi_buf_addc(b, ';');
    bpi_profile_clean_name(b, bpi_profile_frame_label(p, path[n], tmp,
                                                      sizeof(tmp)), ';');
    if(p->frames[path[n]].kind == BP_FRAME_KERNEL)
      bpi_buf_adds(b, "_[k]");
  }
}

/* The format has no comments, so the CPU time in no sample (kernel time
 * that was not permitted: bpi_profile_unsampled_note) is a stack of its
 * own, BP_FOLDED_UNSAMPLED alone, weighing what the task-clock not sampled
 * is in samples of the profile's mean weight.  Flame graph tools draw it
 * beside the processes at its share of the CPU time; compare counts no
 * function in it (a line's first frame is a process).  Nothing when the
 * share is not known (an event that is no clock, a benchmark's slice) or
 * under half a sample. */
static void add_unsampled(const struct bp_profile *p, struct bp_buf *out)
{
  const struct bp_profile_meta *m = &p->meta;
  uint64_t samples = 0, sampled_ns = bpi_profile_sampled_ns(p);
  for(uint32_t i = 0; i < p->ncounts; i++)
    samples += p->counts[i].count;
  if(!m->kernel_unsampled || bpi_profile_unsampled_pct(p) < 0 ||
     !samples || !sampled_ns || (double)sampled_ns >= m->task_clock_ns)
    return;
  double missing = (m->task_clock_ns - (double)sampled_ns) *
                   (double)samples / (double)sampled_ns;
  if(missing >= 0.5)
    bpi_buf_printf(out, BP_FOLDED_UNSAMPLED " %" PRIu64 "\n",
                   (uint64_t)(missing + 0.5));
}

static int by_text(const void *a, const void *b)
{
  const struct line *x = a, *y = b;
  return strcmp(x->text, y->text);
}

/* One (thread, stack, value) to fold; preempted: off-CPU time the thread
 * was runnable, folded under a last frame "[preempted]". */
struct fold_in {
  uint32_t thread, stack;
  uint64_t value;
  bool preempted;
};

/* Lines of the n inputs, merged by text, each printed as its values' sum
 * divided by unit (rounded; lines that round to 0 are left out). */
static bp_code fold(const struct bp_profile *p, const struct fold_in *in,
                    uint32_t n, uint64_t unit, struct bp_buf *out,
                    struct bp_err *err)
{
  bp_code rc = BP_OK;
  struct bp_buf text;
  uint32_t depth = 0;
  for(uint32_t i = 0; i < n; i++) {
    uint32_t d = bpi_profile_stack_depth(p, in[i].stack);
    depth = d > depth ? d : depth;
  }
  struct line *lines = calloc(n ? n : 1, sizeof(*lines));
  uint32_t *path = calloc(depth + 1, sizeof(*path));
  bpi_buf_init(&text);
  if(!lines || !path) {
    rc = bpi_err_set(err, BPE_NOMEM, 0, "folded stacks");
    goto out;
  }
  /* each line's text, NUL-terminated, one after the other */
  for(uint32_t i = 0; i < n; i++) {
    lines[i].off = text.len;
    lines[i].count = in[i].value;
    if(in[i].thread < p->nthreads)
      add_process(&text, p, &p->threads[in[i].thread]);
    else
      bpi_buf_adds(&text, "[unknown]");
    add_frames(&text, p, in[i].stack, path);
    if(in[i].preempted)
      bpi_buf_adds(&text, ";" BP_FOLDED_PREEMPTED);
    bpi_buf_addc(&text, '\0');
  }
  if(bpi_buf_failed(&text)) {
    rc = bpi_err_set(err, BPE_NOMEM, 0, "folded stacks");
    goto out;
  }
  for(uint32_t i = 0; i < n; i++)
    lines[i].text = text.data + lines[i].off;
  qsort(lines, n, sizeof(*lines), by_text);
  for(uint32_t i = 0; i < n;) {
    uint64_t count = 0;
    uint32_t j = i;
    for(; j < n && !by_text(&lines[i], &lines[j]); j++)
      count += lines[j].count;
    count = (count + unit / 2) / unit;
    if(count)
      bpi_buf_printf(out, "%s %" PRIu64 "\n", lines[i].text, count);
    i = j;
  }
out:
  bpi_buf_cleanup(&text);
  free(path);
  free(lines);
  return rc;
}

static bp_code folded_write(const struct bp_profile *p, struct bp_buf *out,
                            struct bp_err *err)
{
  struct fold_in *in = calloc(p->ncounts ? p->ncounts : 1, sizeof(*in));
  if(!in)
    return bpi_err_set(err, BPE_NOMEM, 0, "folded stacks");
  for(uint32_t i = 0; i < p->ncounts; i++)
    in[i] = (struct fold_in){p->counts[i].thread, p->counts[i].stack,
                             p->counts[i].count, false};
  bp_code rc = fold(p, in, p->ncounts, 1, out, err);
  free(in);
  if(!rc)  /* in samples: profile.folded's own, not the off-CPU file's */
    add_unsampled(p, out);
  return rc;
}

/* Off-CPU time per stack, in microseconds. */
static bp_code offcpu_folded_write(const struct bp_profile *p,
                                   struct bp_buf *out, struct bp_err *err)
{
  uint32_t n = p->noff_counts;
  struct fold_in *in = calloc(n ? 2 * (size_t)n : 1, sizeof(*in));
  if(!in)
    return bpi_err_set(err, BPE_NOMEM, 0, "off-CPU folded stacks");
  for(uint32_t i = 0; i < n; i++) {
    const struct bp_off_count *c = &p->off_counts[i];
    in[2 * i] = (struct fold_in){c->thread, c->stack, c->ns - c->preempt_ns,
                                 false};
    in[2 * i + 1] = (struct fold_in){c->thread, c->stack, c->preempt_ns,
                                     true};
  }
  bp_code rc = fold(p, in, 2 * n, 1000, out, err);
  free(in);
  return rc;
}

const struct bp_exporter bpi_export_folded = {
  "folded", BP_FILE_FOLDED, false, folded_write, NULL
};

const struct bp_exporter bpi_export_offcpu_folded = {
  "offcpu-folded", BP_FILE_OFFCPU_FOLDED, false, offcpu_folded_write,
  bpi_export_has_off_cpu
};

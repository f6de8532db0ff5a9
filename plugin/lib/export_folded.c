/* Folded stacks: one line per distinct (process name, stack), root first,
 * "proc;main;work;leaf 123".  flamegraph.pl, inferno, speedscope and the
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

/* Append ";frame" for each frame of stack, root first.  path is scratch
 * space of at least the stack's depth. */
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

static bp_code folded_write(const struct bp_profile *p, struct bp_buf *out,
                            struct bp_err *err)
{
  bp_code rc = BP_OK;
  struct bp_buf text;
  struct line *lines = calloc(p->ncounts ? p->ncounts : 1, sizeof(*lines));
  uint32_t *path = calloc(bpi_profile_max_depth(p) + 1, sizeof(*path));
  bpi_buf_init(&text);
  if(!lines || !path) {
    rc = bpi_err_set(err, BPE_NOMEM, 0, "folded stacks");
    goto out;
  }
  /* each line's text, NUL-terminated, one after the other */
  for(uint32_t i = 0; i < p->ncounts; i++) {
    const struct bp_stack_count *c = &p->counts[i];
    lines[i].off = text.len;
    lines[i].count = c->count;
    if(c->thread < p->nthreads)
      add_process(&text, p, &p->threads[c->thread]);
    else
      bpi_buf_adds(&text, "[unknown]");
    add_frames(&text, p, c->stack, path);
    bpi_buf_addc(&text, '\0');
  }
  if(bpi_buf_failed(&text)) {
    rc = bpi_err_set(err, BPE_NOMEM, 0, "folded stacks");
    goto out;
  }
  for(uint32_t i = 0; i < p->ncounts; i++)
    lines[i].text = text.data + lines[i].off;
  qsort(lines, p->ncounts, sizeof(*lines), by_text);
  for(uint32_t i = 0; i < p->ncounts;) {
    uint64_t count = 0;
    uint32_t j = i;
    for(; j < p->ncounts && !by_text(&lines[i], &lines[j]); j++)
      count += lines[j].count;
    bpi_buf_printf(out, "%s %" PRIu64 "\n", lines[i].text, count);
    i = j;
  }
  add_unsampled(p, out);
out:
  bpi_buf_cleanup(&text);
  free(path);
  free(lines);
  return rc;
}

const struct bp_exporter bpi_export_folded = {
  "folded", BP_FILE_FOLDED, false, folded_write
};

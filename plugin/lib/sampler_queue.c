/* sampler_queue: the time-ordered queue (what perf calls ordered
 * events).  Records are read from every CPU's ring (or, replaying, from
 * its spill file and then the ring), queued where they lie, merged by
 * time and handed to the callback up to the time before which every
 * record has certainly been read; the rings' space is given back behind
 * the oldest record still queued. */
#include "bp_setup.h"
#include "sampler_int.h"
#include "err.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

static bp_code queue_record(struct bp_sampler *s, uint32_t ring,
                            const void *rec, size_t len)
{
  struct bp_ring *r = &s->active[ring];
  bool copy = rec == r->scratch;  /* wrapped: the scratch copy is reused */
  if(copy && s->arena_len + len > s->arena_cap) {
    size_t cap = s->arena_cap ? s->arena_cap : 65536;
    while(cap < s->arena_len + len)
      cap *= 2;
    unsigned char *a = realloc(s->arena, cap);
    if(!a)
      return BPE_NOMEM;
    s->arena = a;
    s->arena_cap = cap;
  }
  if(s->nqueue == s->queue_cap) {
    size_t cap = s->queue_cap ? s->queue_cap * 2 : 1024;
    struct queued *q = realloc(s->queue, cap * sizeof(*q));
    if(!q)
      return BPE_NOMEM;
    s->queue = q;
    s->queue_cap = cap;
  }
  struct queued q = {
    .time = bpi_records_time(&s->layout, rec, len), .seq = s->seq++,
    .ptr = rec, .len = len, .pos = r->tail - len, .ring = ring,
  };
  if(copy) {
    memcpy(s->arena + s->arena_len, rec, len);
    q.ptr = NULL;
    q.off = s->arena_len;
    s->arena_len += len;
  }
  s->queue[s->nqueue++] = q;
  s->queued_bytes += len;
  if(s->queued_bytes > s->queue_peak)
    s->queue_peak = s->queued_bytes;
  return BP_OK;
}

/* Arena records by offset, ring records after them. */
static int by_offset(const void *a, const void *b)
{
  const struct queued *x = a, *y = b;
  if(!x->ptr != !y->ptr)
    return x->ptr ? 1 : -1;
  return x->off < y->off ? -1 : x->off > y->off;
}

static int by_time(const void *a, const void *b)
{
  const struct queued *x = a, *y = b;
  if(x->time != y->time)
    return x->time < y->time ? -1 : 1;
  return x->seq < y->seq ? -1 : (x->seq > y->seq);
}

/* How many rings s->active holds (see there). */
static uint32_t n_active(const struct bp_sampler *s)
{
  return s->replaying ? 2 * s->ncpus : s->ncpus;
}

/* How far ahead in time one spill file may be read of the others. */
#define REPLAY_AHEAD_NS 10000000ULL

/* Bytes taken from one ring per round: the queue stays bounded by this
 * times the number of CPUs, however far behind the reader is. */
#define RING_ROUND_BYTES (256 * 1024)

/* Queue what the rings hold (up to RING_ROUND_BYTES each).
 * *limit receives the time up to which every record has certainly been
 * read: records carry the CLOCK_MONOTONIC time the kernel took just
 * before writing them, so anything stamped a millisecond before this
 * round began is already in some ring, and anything stamped a millisecond
 * before the last record read from a ring left unfinished is not among
 * what that ring still holds.  Newer records wait for the next round,
 * when a ring read earlier in this round may still add older ones.
 * Replaying spill files (and, after them, what the rings still hold),
 * every record is already written: only the second rule applies, a reader
 * is unfinished while its file is, and a reader whose records are already
 * more than REPLAY_AHEAD_NS newer than the least advanced one's waits:
 * what it read stays queued (mapped, spill.h, or in the ring) until the
 * others catch up, and would pile up for as long as the run was. */
static bp_code read_rings(struct bp_sampler *s, uint64_t *limit, bool *more)
{
  *more = false;
  uint64_t behind = UINT64_MAX;  /* the least advanced unfinished file */
  if(s->replaying) {
    *limit = UINT64_MAX;
    for(uint32_t i = 0; i < n_active(s); i++)
      if((s->active[i].tail != __atomic_load_n(&s->active[i].page->data_head,
                                               __ATOMIC_ACQUIRE) ||
          s->reader_more[i]) && s->reader_last[i] < behind)
        behind = s->reader_last[i];
  }
  else {
    uint64_t begin = bpi_sampler_now_ns(CLOCK_MONOTONIC);
    *limit = begin > 1000000 ? begin - 1000000 : 0;
  }
  for(uint32_t i = 0; i < n_active(s); i++) {
    struct bp_ring *r = &s->active[i];
    const void *rec;
    size_t len, taken = 0;
    bp_code rc = BP_OK;
    bool queued = false;
    bool ahead = s->replaying && behind != UINT64_MAX &&
                 s->reader_last[i] > behind + REPLAY_AHEAD_NS;
    if(!ahead && bpi_ring_begin(r)) {
      while(taken < RING_ROUND_BYTES && bpi_ring_next(r, &rec, &len, &rc)) {
        rc = queue_record(s, i, rec, len);
        if(rc)
          return rc;
        taken += len;
        queued = true;
      }
      if(rc)
        return rc;
    }
    uint64_t last = queued ? s->queue[s->nqueue - 1].time : 0;
    if(s->replaying) {
      if(queued)
        s->reader_last[i] = last;
      last = s->reader_last[i];
    }
    bool unfinished = r->tail != r->head ||
                      (s->replaying && s->reader_more[i]);
    if(unfinished)
      *more = true;
    if(unfinished && (queued || s->replaying)) {
      uint64_t t = last > 1000000 ? last - 1000000 : 0;
      if(t < *limit)
        *limit = t;
    }
  }
  return BP_OK;
}

/* Give the kernel back each ring's space up to its oldest record still
 * queued (all of what was read when none is). */
static void release_rings(struct bp_sampler *s)
{
  struct bp_ring *rings = s->active;
  for(uint32_t i = 0; i < n_active(s); i++)
    rings[i].keep = rings[i].tail;
  for(size_t j = 0; j < s->nqueue; j++) {
    struct bp_ring *r = &rings[s->queue[j].ring];
    if(s->queue[j].pos < r->keep)
      r->keep = s->queue[j].pos;
  }
  for(uint32_t i = 0; i < n_active(s); i++)
    bpi_ring_consume_to(&rings[i], rings[i].keep);
}

/* Records are delivered PREFETCH_AHEAD ahead of their turn's memory:
 * the parts of a sample the converter reads (its fixed fields, callchain,
 * registers and the top of its stack copy, PREFETCH_HEAD bytes, and its
 * end, where dyn_size is) are asked of memory while the records before it
 * are unwound.  Read back from a spill file they were written long before
 * and are no longer in any cache: one miss after the other, a sample's
 * 8 KiB apart, took more time than unwinding them. */
#define PREFETCH_AHEAD 2
#define PREFETCH_HEAD 1024

static void prefetch_record(const unsigned char *p, size_t len)
{
  size_t head = len < PREFETCH_HEAD ? len : PREFETCH_HEAD;
  for(size_t at = 0; at < head; at += 64)
    __builtin_prefetch(p + at);
  __builtin_prefetch(p + len - 1);
}

/* Merge the sorted runs a[lo, mid) and a[mid, hi) into out[lo, hi). */
static void merge_runs(const struct queued *a, size_t lo, size_t mid,
                       size_t hi, struct queued *out)
{
  size_t i = lo, j = mid, k = lo;
  while(i < mid && j < hi)
    out[k++] = by_time(&a[j], &a[i]) < 0 ? a[j++] : a[i++];
  while(i < mid)
    out[k++] = a[i++];
  while(j < hi)
    out[k++] = a[j++];
}

/* Sort the queue by time (then arrival).  It is a few runs already in
 * order: what the last round kept, then each ring's new records as they
 * were read (a ring's records follow each other in time); so it is
 * merged run by run, adjacent pairs at a time, in O(n log runs) instead
 * of being sorted from scratch each round (qsort was a sixth of the time
 * after the run with 100k samples).  BPE_NOMEM. */
static bp_code sort_queue(struct bp_sampler *s)
{
  size_t n = s->nqueue, sorted = 1;
  while(sorted < n && by_time(&s->queue[sorted - 1], &s->queue[sorted]) <= 0)
    sorted++;
  if(sorted >= n)
    return BP_OK;
  if(s->sort_cap < n) {
    struct queued *t = realloc(s->sort_tmp, s->queue_cap * sizeof(*t));
    if(!t)
      return BPE_NOMEM;
    s->sort_tmp = t;
    s->sort_cap = s->queue_cap;
  }
  struct queued *a = s->queue, *b = s->sort_tmp;
  for(;;) {
    /* one pass: merge each run with the next */
    size_t lo = 0, runs = 0;
    while(lo < n) {
      size_t mid = lo + 1;
      while(mid < n && by_time(&a[mid - 1], &a[mid]) <= 0)
        mid++;
      size_t hi = mid < n ? mid + 1 : n;
      while(hi < n && by_time(&a[hi - 1], &a[hi]) <= 0)
        hi++;
      merge_runs(a, lo, mid, hi, b);
      lo = hi;
      runs++;
    }
    struct queued *t = a;
    a = b;
    b = t;
    if(runs == 1)
      break;
  }
  if(a != s->queue)
    memcpy(s->queue, a, n * sizeof(*a));
  return BP_OK;
}

/* Deliver queued records up to limit in time order; keep the rest. */
static bp_code deliver(struct bp_sampler *s, uint64_t limit, bp_record_fn fn,
                       void *ctx, bp_code *cb_rc)
{
  if(sort_queue(s))
    return BPE_NOMEM;
  size_t i = 0;
  for(; i < s->nqueue && s->queue[i].time <= limit; i++) {
    const struct queued *q = &s->queue[i];
    if(i + PREFETCH_AHEAD < s->nqueue) {
      const struct queued *n = q + PREFETCH_AHEAD;
      prefetch_record(n->ptr ? n->ptr : s->arena + n->off, n->len);
    }
    if(*cb_rc == BP_OK)
      *cb_rc = fn(ctx, q->ptr ? q->ptr : s->arena + q->off, q->len);
    s->queued_bytes -= q->len;
  }
  size_t keep = s->nqueue - i;
  if(keep)
    memmove(s->queue, s->queue + i, keep * sizeof(*s->queue));
  s->nqueue = keep;
  /* compact the copies that wait for the next round to the front of the
   * arena, in place: records move only towards the front, so ordering
   * them by offset first makes every move safe (the queue stays in time
   * order when there are none, the usual case: merging it is then one
   * run more) */
  bool copies = false;
  for(size_t j = 0; j < keep && !copies; j++)
    copies = !s->queue[j].ptr;
  if(copies)
    qsort(s->queue, keep, sizeof(*s->queue), by_offset);
  size_t len = 0;
  for(size_t j = 0; j < keep && !s->queue[j].ptr; j++) {
    struct queued *q = &s->queue[j];
    if(q->off != len)
      memmove(s->arena + len, s->arena + q->off, q->len);
    q->off = len;
    len += q->len;
  }
  s->arena_len = len;
  release_rings(s);
  return BP_OK;
}

/* Move records from the rings to the callback, in time order up to limit,
 * until the active rings (and, replaying, their files) hold nothing
 * more, or only what a round left (live, after the command exited, every
 * round goes until they are empty). */
static void read_and_deliver(struct bp_sampler *s, bool final,
                             bp_record_fn fn, void *ctx, bp_code *rc,
                             bp_code *cb_rc)
{
  uint64_t limit;
  bool more;
  do {
    if(s->replaying)
      for(uint32_t i = 0; !*rc && i < s->ncpus; i++)
        *rc = bpi_spill_refill(&s->spills[i], &s->readers[i],
                               &s->reader_more[i]);
    size_t before = s->nqueue;
    if(!*rc)
      *rc = read_rings(s, &limit, &more);
    size_t read = s->nqueue;
    if(!*rc)
      *rc = deliver(s, final && !more ? UINT64_MAX : limit, fn, ctx, cb_rc);
    /* a round that neither read nor delivered anything would repeat for
     * ever (a reader filled with records all within a millisecond of
     * each other): hand out what is queued, a little out of order */
    if(!*rc && more && read == before && s->nqueue == read)
      *rc = deliver(s, UINT64_MAX, fn, ctx, cb_rc);
  } while(!*rc && final && more);
  s->rings_behind = !*rc && more;  /* after an error nothing reads them */
}

/* Move the unread bytes of every ring that woke us (of all with woke
 * NULL) to its spill file: one that did not is not full enough to be
 * worth a system call, nor is one that only says its command exited
 * (POLLHUP: the final drain reads it where it is).  False (errno kept in
 * spill_errno) when a file would not take them. */
static bool spill_rings(struct bp_sampler *s, const struct pollfd *woke)
{
  for(uint32_t i = 0; i < s->ncpus; i++) {
    if(woke && !(woke[i].revents & POLLIN))
      continue;
    if(bpi_spill_take(&s->spills[i], &s->rings[i])) {
      s->spill_errno = errno ? errno : EIO;
      return false;
    }
  }
  return true;
}

/* Move ring i into the replay's readers (after the files), or back. */
static void move_ring(struct bp_ring *to, struct bp_ring *from)
{
  *to = *from;
  memset(from, 0, sizeof(*from));  /* the scratch buffer went with it */
}

/* Whether a file still has records to read, or queued. */
static bool files_pending(const struct bp_sampler *s)
{
  for(uint32_t i = 0; i < s->ncpus; i++)
    if(s->readers[i].tail != s->readers[i].page->data_head ||
       s->reader_more[i])
      return true;
  for(size_t j = 0; j < s->nqueue; j++)
    if(s->queue[j].ring < s->ncpus)
      return true;
  return false;
}

/* Hand what the spill files hold, merged with what the rings hold after
 * them, to the callback in time order, then drop the files: from then on
 * the rings are read live.  final: the command exited, everything is
 * read.  Otherwise (a file refused more while it runs) the rings keep
 * filling, faster than records may be handed out: rounds go on only
 * until nothing of the files is left, read or queued (the rings are read
 * alongside, so that nothing they hold is older than what went out). */
static bp_code replay_spills(struct bp_sampler *s, bool final,
                             bp_record_fn fn, void *ctx, bp_code *cb_rc)
{
  bp_code rc = BP_OK;
  uint32_t n = s->ncpus;
  /* before the files are mapped and the records read (spill.h) */
  if(final) {
    bpi_sampler_free_tops(s);
    bpi_spill_freer_start(&s->freer, s->spills, n);
  }
  for(uint32_t i = 0; !rc && i < n; i++)
    rc = bpi_spill_reader(&s->spills[i], &s->readers[i], SPILL_READER_BYTES);
  if(!rc) {
    for(uint32_t i = 0; i < n; i++) {
      move_ring(&s->readers[n + i], &s->rings[i]);
      s->reader_more[n + i] = false;
      s->reader_last[n + i] = 0;
    }
    s->active = s->readers;
    s->replaying = true;
    if(final)
      read_and_deliver(s, true, fn, ctx, &rc, cb_rc);
    else
      do
        read_and_deliver(s, false, fn, ctx, &rc, cb_rc);
      while(!rc && files_pending(s));
    for(uint32_t i = 0; i < n; i++)
      move_ring(&s->rings[i], &s->readers[n + i]);
    /* what is still queued (not final) is the rings', moved back */
    for(size_t j = 0; j < s->nqueue; j++)
      s->queue[j].ring -= n;
  }
  for(uint32_t i = 0; i < s->ncpus; i++) {
    s->corrupt += s->readers[i].corrupt;
    s->spilled += s->spills[i].written;
    s->spill_trimmed += s->spills[i].trimmed;
    s->spill_freed += s->spills[i].freed;
  }
  /* after a failure, what is still queued may point into the readers */
  if(rc) {
    s->nqueue = 0;
    s->queued_bytes = 0;
    s->arena_len = 0;
  }
  s->replaying = false;
  s->active = s->rings;
  bpi_sampler_free_spills(s);
  return rc;
}

/* final: the files, then the rings (what is still in a ring is not
 * written out to be read back). */
void bpi_sampler_drain(struct bp_sampler *s, const struct pollfd *pfd,
                       bool final, bp_record_fn fn, void *ctx, bp_code *rc,
                       bp_code *cb_rc, struct bp_err *err)
{
  if(*rc)
    return;
  if(s->spills) {
    if(!final && spill_rings(s, pfd)) {
      s->rings_behind = false;
      return;
    }
    *rc = replay_spills(s, final, fn, ctx, cb_rc);
    if(*rc) {
      bpi_err_set(err, *rc, errno, "reading back the spilled rings");
      return;
    }
  }
  read_and_deliver(s, final, fn, ctx, rc, cb_rc);
  if(*rc)
    bpi_err_set(err, *rc, 0, "reading the rings");
}

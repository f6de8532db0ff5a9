#include "bp_setup.h"
#include "records.h"

#include <linux/perf_event.h>
#include <string.h>

#ifndef PERF_RECORD_MISC_MMAP_BUILD_ID
#define PERF_RECORD_MISC_MMAP_BUILD_ID (1 << 14)
#endif

/* A bounds-checked reader over one record. */
struct cursor {
  const unsigned char *p;
  size_t left;
  bool bad;
};

static uint64_t take_u64(struct cursor *c)
{
  uint64_t v = 0;
  if(c->left < 8) {
    c->bad = true;
    c->left = 0;
    return 0;
  }
  memcpy(&v, c->p, 8);
  c->p += 8;
  c->left -= 8;
  return v;
}

static void take_u32_pair(struct cursor *c, uint32_t *a, uint32_t *b)
{
  uint64_t v = take_u64(c);
  uint32_t lo = (uint32_t)v, hi = (uint32_t)(v >> 32);
  *a = lo;  /* little-endian: first u32 is the low half */
  *b = hi;
}

/* A pointer to n u64s, or NULL (and bad) when they do not fit. */
static const uint64_t *take_u64s(struct cursor *c, uint64_t n)
{
  if(n > c->left / 8) {
    c->bad = true;
    c->left = 0;
    return NULL;
  }
  const uint64_t *v = (const uint64_t *)(const void *)c->p;
  c->p += n * 8;
  c->left -= n * 8;
  return v;
}

static const unsigned char *take_bytes(struct cursor *c, uint64_t n)
{
  if(n > c->left) {
    c->bad = true;
    c->left = 0;
    return NULL;
  }
  const unsigned char *v = c->p;
  c->p += n;
  c->left -= n;
  return v;
}

/* A NUL-terminated string padded to 8 bytes, ending before the sample id
 * trailer.  trailer is the number of bytes the trailer takes. */
static const char *take_string(struct cursor *c, size_t trailer)
{
  if(c->left < trailer + 1) {
    c->bad = true;
    return NULL;
  }
  size_t room = c->left - trailer;
  const char *s = (const char *)c->p;
  if(!memchr(s, '\0', room)) {
    c->bad = true;
    return NULL;
  }
  c->p += room;
  c->left -= room;
  return s;
}

static size_t sample_id_size(const struct bp_rec_layout *lay)
{
  if(!lay->sample_id_all)
    return 0;
  uint64_t t = lay->sample_type;
  size_t n = 0;
  n += (t & PERF_SAMPLE_TID) ? 8 : 0;
  n += (t & PERF_SAMPLE_TIME) ? 8 : 0;
  n += (t & PERF_SAMPLE_ID) ? 8 : 0;
  n += (t & PERF_SAMPLE_STREAM_ID) ? 8 : 0;
  n += (t & PERF_SAMPLE_CPU) ? 8 : 0;
  n += (t & PERF_SAMPLE_IDENTIFIER) ? 8 : 0;
  return n;
}

static void parse_sample_id(const struct bp_rec_layout *lay,
                            struct cursor *c, struct bp_rec_id *sid)
{
  uint64_t t = lay->sample_type;
  uint32_t unused;
  if(!lay->sample_id_all)
    return;
  if(t & PERF_SAMPLE_TID)
    take_u32_pair(c, &sid->pid, &sid->tid);
  if(t & PERF_SAMPLE_TIME) {
    sid->time = take_u64(c);
    sid->has_time = true;
  }
  if(t & PERF_SAMPLE_ID)
    sid->id = take_u64(c);
  if(t & PERF_SAMPLE_STREAM_ID)
    take_u64(c);
  if(t & PERF_SAMPLE_CPU)
    take_u32_pair(c, &sid->cpu, &unused);
  if(t & PERF_SAMPLE_IDENTIFIER)
    sid->id = take_u64(c);
}

static unsigned popcount64(uint64_t v)
{
  return (unsigned)__builtin_popcountll(v);
}

static void parse_sample(const struct bp_rec_layout *lay, struct cursor *c,
                         struct bp_rec *r)
{
  uint64_t t = lay->sample_type;
  struct bp_rec_sample *s = &r->u.sample;
  uint32_t unused;
  uint16_t mode = r->misc & PERF_RECORD_MISC_CPUMODE_MASK;
  s->user = mode == PERF_RECORD_MISC_USER;
  if(t & PERF_SAMPLE_IDENTIFIER)
    r->sid.id = take_u64(c);
  if(t & PERF_SAMPLE_IP)
    s->ip = take_u64(c);
  if(t & PERF_SAMPLE_TID)
    take_u32_pair(c, &r->sid.pid, &r->sid.tid);
  if(t & PERF_SAMPLE_TIME) {
    r->sid.time = take_u64(c);
    r->sid.has_time = true;
  }
  if(t & PERF_SAMPLE_ADDR)
    take_u64(c);
  if(t & PERF_SAMPLE_ID)
    r->sid.id = take_u64(c);
  if(t & PERF_SAMPLE_STREAM_ID)
    take_u64(c);
  if(t & PERF_SAMPLE_CPU)
    take_u32_pair(c, &r->sid.cpu, &unused);
  if(t & PERF_SAMPLE_PERIOD)
    s->period = take_u64(c);
  if(t & PERF_SAMPLE_READ) {
    c->bad = true;  /* never requested; layout depends on read_format */
    return;
  }
  if(t & PERF_SAMPLE_CALLCHAIN) {
    s->nr = take_u64(c);
    s->ips = take_u64s(c, s->nr);
    if(!s->ips)
      s->nr = 0;
  }
  if(t & PERF_SAMPLE_RAW) {
    uint32_t size;
    memcpy(&size, c->left >= 4 ? c->p : (const unsigned char *)"\0\0\0\0",
           4);
    /* the kernel pads raw data so that what follows stays 8-aligned: the
     * register and callchain arrays are read in place as uint64_t */
    if((4 + (uint64_t)size) % 8) {
      c->bad = true;
      return;
    }
    take_bytes(c, 4 + (uint64_t)size);
  }
  if(t & PERF_SAMPLE_BRANCH_STACK) {  /* LBR call stacks */
    s->nbranches = take_u64(c);
    if(lay->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
      take_u64(c);
    if(s->nbranches > c->left / 24) {
      c->bad = true;
      return;
    }
    s->branches = take_u64s(c, s->nbranches * 3);
    if(!s->branches)
      s->nbranches = 0;
  }
  if(t & PERF_SAMPLE_REGS_USER) {
    s->regs_abi = take_u64(c);
    if(s->regs_abi) {
      s->nregs = popcount64(lay->sample_regs_user);
      s->regs = take_u64s(c, s->nregs);
    }
  }
  if(t & PERF_SAMPLE_STACK_USER) {
    s->stack_size = take_u64(c);
    if(s->stack_size) {
      s->stack = take_bytes(c, s->stack_size);
      s->stack_dyn_size = take_u64(c);
      if(s->stack_dyn_size > s->stack_size)
        c->bad = true;
    }
  }
}

static void parse_mmap(const struct bp_rec_layout *lay, struct cursor *c,
                       struct bp_rec *r, bool mmap2)
{
  struct bp_rec_mmap *m = &r->u.mmap;
  m->is_mmap2 = mmap2;
  take_u32_pair(c, &m->pid, &m->tid);
  m->start = take_u64(c);
  m->len = take_u64(c);
  m->pgoff = take_u64(c);
  m->prot = 4; /* PROT_EXEC: PERF_RECORD_MMAP only reports executable maps */
  if(mmap2) {
    const unsigned char *ids = take_bytes(c, 24);
    if(ids && (r->misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) {
      m->build_id_size = ids[0] <= 20 ? ids[0] : 20;
      memcpy(m->build_id, ids + 4, m->build_id_size);
    }
    else if(ids) {
      memcpy(&m->maj, ids, 4);
      memcpy(&m->min, ids + 4, 4);
      memcpy(&m->ino, ids + 8, 8);
      m->has_ino = true;
    }
    uint32_t flags;
    take_u32_pair(c, &m->prot, &flags);
  }
  m->filename = take_string(c, sample_id_size(lay));
  r->sid.pid = m->pid;
  r->sid.tid = m->tid;
}

static void parse_comm(const struct bp_rec_layout *lay, struct cursor *c,
                       struct bp_rec *r)
{
  struct bp_rec_comm *cm = &r->u.comm;
  take_u32_pair(c, &cm->pid, &cm->tid);
  cm->comm = take_string(c, sample_id_size(lay));
  cm->exec = (r->misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
  r->sid.pid = cm->pid;
  r->sid.tid = cm->tid;
}

static void parse_task(struct cursor *c, struct bp_rec *r)
{
  struct bp_rec_task *t = &r->u.task;
  take_u32_pair(c, &t->pid, &t->ppid);
  take_u32_pair(c, &t->tid, &t->ptid);
  t->time = take_u64(c);
}

bp_code bpi_records_parse(const struct bp_rec_layout *lay, const void *data,
                          size_t len, struct bp_rec *out)
{
  struct perf_event_header h;
  memset(out, 0, sizeof(*out));
  if(len < sizeof(h))
    return BPE_FORMAT;
  memcpy(&h, data, sizeof(h));
  if(h.size < sizeof(h) || h.size > len)
    return BPE_FORMAT;
  out->raw_type = h.type;
  out->misc = h.misc;
  struct cursor c = {(const unsigned char *)data + sizeof(h),
                     h.size - sizeof(h), false};
  bool has_trailer = true;
  switch(h.type) {
  case PERF_RECORD_SAMPLE:
    out->type = BP_REC_SAMPLE;
    parse_sample(lay, &c, out);
    has_trailer = false;
    break;
  case PERF_RECORD_MMAP:
  case PERF_RECORD_MMAP2:
    out->type = BP_REC_MMAP;
    parse_mmap(lay, &c, out, h.type == PERF_RECORD_MMAP2);
    break;
  case PERF_RECORD_COMM:
    out->type = BP_REC_COMM;
    parse_comm(lay, &c, out);
    break;
  case PERF_RECORD_FORK:
  case PERF_RECORD_EXIT:
    out->type = h.type == PERF_RECORD_FORK ? BP_REC_FORK : BP_REC_EXIT;
    parse_task(&c, out);
    break;
  case PERF_RECORD_LOST:
    out->type = BP_REC_LOST;
    out->u.lost.id = take_u64(&c);
    out->u.lost.lost = take_u64(&c);
    break;
  case PERF_RECORD_THROTTLE:
  case PERF_RECORD_UNTHROTTLE:
    out->type = h.type == PERF_RECORD_THROTTLE ? BP_REC_THROTTLE
                                               : BP_REC_UNTHROTTLE;
    take_u64s(&c, 3); /* time, id, stream_id */
    break;
  case PERF_RECORD_SWITCH:
    out->type = BP_REC_SWITCH;  /* no body: the sample id says who */
    break;
  default:
    out->type = BP_REC_OTHER;
    return BP_OK;
  }
  if(has_trailer && !c.bad) {
    /* the sample id sits at the very end of the record */
    size_t idsz = sample_id_size(lay);
    if(idsz > h.size - sizeof(h)) {
      c.bad = true;
    }
    else {
      struct cursor t = {(const unsigned char *)data + h.size - idsz, idsz,
                         false};
      uint32_t pid = out->sid.pid, tid = out->sid.tid;
      parse_sample_id(lay, &t, &out->sid);
      if(out->type == BP_REC_MMAP || out->type == BP_REC_COMM) {
        out->sid.pid = pid;  /* the body's pid/tid are authoritative */
        out->sid.tid = tid;
      }
    }
  }
  return c.bad ? BPE_FORMAT : BP_OK;
}

uint64_t bpi_records_time(const struct bp_rec_layout *lay, const void *data,
                          size_t len)
{
  struct perf_event_header h;
  uint64_t t = lay->sample_type;
  if(len >= sizeof(h)) {
    memcpy(&h, data, sizeof(h));
    /* a sample's time sits at a fixed place: no need for a full parse */
    size_t off = sizeof(h) + 8 * (!!(t & PERF_SAMPLE_IDENTIFIER) +
                                  !!(t & PERF_SAMPLE_IP) +
                                  !!(t & PERF_SAMPLE_TID));
    if(h.type == PERF_RECORD_SAMPLE && (t & PERF_SAMPLE_TIME) &&
       h.size <= len && off + 8 <= h.size) {
      uint64_t v;
      memcpy(&v, (const unsigned char *)data + off, 8);
      return v;
    }
  }
  struct bp_rec r;
  if(bpi_records_parse(lay, data, len, &r) || !r.sid.has_time)
    return 0;
  return r.sid.time;
}

size_t bpi_records_lbr_chain(const struct bp_rec_sample *s, uint64_t *out,
                             size_t max)
{
  size_t n = 0, i = 0;
  uint64_t leaf = s->user ? s->ip : 0;
  if(!s->nbranches || max < 2)
    return 0;
  /* the kernel part of the callchain, up to its user part */
  for(; i < s->nr && s->ips[i] != (uint64_t)PERF_CONTEXT_USER; i++) {
    if(n < max)
      out[n++] = s->ips[i];
  }
  if(s->user)
    n = 0;  /* stopped in user space: no kernel part */
  for(size_t j = i + 1; !leaf && j < s->nr; j++)
    if(s->ips[j] < (uint64_t)PERF_CONTEXT_MAX)
      leaf = s->ips[j];
  if(n + 2 > max)
    n = max - 2;
  out[n++] = (uint64_t)PERF_CONTEXT_USER;
  if(leaf)
    out[n++] = leaf;
  for(uint64_t b = 0; b < s->nbranches && n < max; b++)
    out[n++] = s->branches[3 * b];  /* from: the call instruction */
  return n;
}

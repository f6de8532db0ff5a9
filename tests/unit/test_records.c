/* Ring reading and record parsing on crafted ring contents: wraparound,
 * truncated and unknown records, corrupt headers, every record type the
 * converter uses; rings spilled to a file and read back (spill.h). */
#include "bp_setup.h"
#include "check.h"
#include "records.h"
#include "ring.h"
#include "spill.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DATA_SIZE 256

static const struct bp_rec_layout layout = {
  .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN,
  .sample_id_all = true,
};

/* A fake mapping: the control page, then DATA_SIZE bytes of data. */
struct fake_ring {
  unsigned char *mem;
  struct perf_event_mmap_page *page;
  unsigned char *data;
  size_t size;
};

static void fake_init_size(struct fake_ring *f, size_t size)
{
  long pg = sysconf(_SC_PAGESIZE);
  f->mem = calloc(1, (size_t)pg + size);
  f->page = (struct perf_event_mmap_page *)(void *)f->mem;
  f->page->data_offset = (uint64_t)pg;
  f->page->data_size = size;
  f->data = f->mem + pg;
  f->size = size;
}

static void fake_init(struct fake_ring *f)
{
  fake_init_size(f, DATA_SIZE);
}

/* Write bytes at the kernel's head position, wrapping like the kernel. */
static void fake_write(struct fake_ring *f, const void *src, size_t len)
{
  const unsigned char *s = src;
  uint64_t head = f->page->data_head;
  for(size_t i = 0; i < len; i++)
    f->data[(head + i) % f->size] = s[i];
  f->page->data_head = head + len;
}

static size_t put_u64(unsigned char *buf, size_t at, uint64_t v)
{
  memcpy(buf + at, &v, 8);
  return at + 8;
}

static size_t put_u32x2(unsigned char *buf, size_t at, uint32_t a,
                        uint32_t b)
{
  memcpy(buf + at, &a, 4);
  memcpy(buf + at + 4, &b, 4);
  return at + 8;
}

static void put_header(unsigned char *buf, uint32_t type, uint16_t misc,
                       size_t size)
{
  struct perf_event_header h = {.type = type, .misc = misc,
                                .size = (uint16_t)size};
  memcpy(buf, &h, sizeof(h));
}

/* A sample with a 3-entry callchain (marker, leaf, caller). */
static size_t make_sample(unsigned char *buf, uint32_t pid, uint64_t time)
{
  size_t at = 8;
  at = put_u64(buf, at, 0x401000);           /* ip */
  at = put_u32x2(buf, at, pid, pid + 1);     /* pid, tid */
  at = put_u64(buf, at, time);               /* time */
  at = put_u64(buf, at, 1003009);            /* period */
  at = put_u64(buf, at, 3);                  /* nr */
  at = put_u64(buf, at, (uint64_t)PERF_CONTEXT_USER);
  at = put_u64(buf, at, 0x401000);
  at = put_u64(buf, at, 0x402345);
  put_header(buf, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, at);
  return at;
}

static size_t make_comm(unsigned char *buf, const char *name, bool exec)
{
  size_t at = 8;
  at = put_u32x2(buf, at, 42, 43);
  size_t n = strlen(name) + 1;
  size_t padded = (n + 7) & ~(size_t)7;
  memset(buf + at, 0, padded);
  memcpy(buf + at, name, n);
  at += padded;
  at = put_u32x2(buf, at, 42, 43);  /* sample id: pid, tid */
  at = put_u64(buf, at, 777);       /* time */
  put_header(buf, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0,
             at);
  return at;
}

static size_t make_mmap2(unsigned char *buf, const char *path)
{
  size_t at = 8;
  at = put_u32x2(buf, at, 42, 42);
  at = put_u64(buf, at, 0x7f0000001000);
  at = put_u64(buf, at, 0x2000);
  at = put_u64(buf, at, 0x1000);
  unsigned char ids[24] = {20, 0, 0, 0};
  for(int i = 0; i < 20; i++)
    ids[4 + i] = (unsigned char)(0xa0 + i);
  memcpy(buf + at, ids, 24);
  at += 24;
  at = put_u32x2(buf, at, 5 /* PROT_READ|PROT_EXEC */, 2);
  size_t n = strlen(path) + 1, padded = (n + 7) & ~(size_t)7;
  memset(buf + at, 0, padded);
  memcpy(buf + at, path, n);
  at += padded;
  at = put_u32x2(buf, at, 42, 42);
  at = put_u64(buf, at, 555);
  put_header(buf, PERF_RECORD_MMAP2, (1 << 14) | PERF_RECORD_MISC_USER, at);
  return at;
}

static void test_parse_sample(void)
{
  unsigned char buf[256];
  size_t len = make_sample(buf, 100, 12345);
  struct bp_rec r;
  CHECK_EQ_INT(bpi_records_parse(&layout, buf, len, &r), BP_OK);
  CHECK_EQ_INT(r.type, BP_REC_SAMPLE);
  CHECK_EQ_INT(r.sid.pid, 100);
  CHECK_EQ_INT(r.sid.tid, 101);
  CHECK_EQ_INT(r.sid.time, 12345);
  CHECK_EQ_INT(r.u.sample.period, 1003009);
  CHECK_EQ_INT(r.u.sample.nr, 3);
  CHECK(r.u.sample.user);
  CHECK(r.u.sample.ips && r.u.sample.ips[2] == 0x402345);
  CHECK_EQ_INT(bpi_records_time(&layout, buf, len), 12345);

  /* a callchain count that points past the record is rejected */
  put_u64(buf, 40, 1000);
  CHECK_EQ_INT(bpi_records_parse(&layout, buf, len, &r), BPE_FORMAT);
  /* a header size larger than the bytes we have */
  make_sample(buf, 100, 1);
  CHECK_EQ_INT(bpi_records_parse(&layout, buf, len - 8, &r), BPE_FORMAT);
  /* a size smaller than a header */
  put_header(buf, PERF_RECORD_SAMPLE, 0, 4);
  CHECK_EQ_INT(bpi_records_parse(&layout, buf, len, &r), BPE_FORMAT);
}

static void test_parse_truncated_sample(void)
{
  unsigned char buf[256];
  size_t len = make_sample(buf, 7, 9);
  /* claim a shorter record: the callchain no longer fits */
  put_header(buf, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, len - 16);
  struct bp_rec r;
  CHECK_EQ_INT(bpi_records_parse(&layout, buf, len - 16, &r), BPE_FORMAT);
}

static void test_parse_comm_mmap(void)
{
  unsigned char buf[256];
  struct bp_rec r;
  size_t len = make_comm(buf, "worker-1", true);
  CHECK_EQ_INT(bpi_records_parse(&layout, buf, len, &r), BP_OK);
  CHECK_EQ_INT(r.type, BP_REC_COMM);
  CHECK_EQ_STR(r.u.comm.comm, "worker-1");
  CHECK(r.u.comm.exec);
  CHECK_EQ_INT(r.sid.time, 777);

  /* a name without its terminating NUL is rejected */
  memset(buf + 16, 'x', len - 16 - 16);
  CHECK_EQ_INT(bpi_records_parse(&layout, buf, len, &r), BPE_FORMAT);

  len = make_mmap2(buf, "/usr/lib/libfoo.so");
  CHECK_EQ_INT(bpi_records_parse(&layout, buf, len, &r), BP_OK);
  CHECK_EQ_INT(r.type, BP_REC_MMAP);
  CHECK_EQ_STR(r.u.mmap.filename, "/usr/lib/libfoo.so");
  CHECK_EQ_INT(r.u.mmap.start, 0x7f0000001000);
  CHECK_EQ_INT(r.u.mmap.pgoff, 0x1000);
  CHECK_EQ_INT(r.u.mmap.build_id_size, 20);
  CHECK_EQ_INT(r.u.mmap.build_id[19], 0xa0 + 19);
  CHECK_EQ_INT(r.u.mmap.prot, 5);
  CHECK_EQ_INT(r.sid.time, 555);
}

static void test_parse_lost_unknown(void)
{
  unsigned char buf[64];
  size_t at = 8;
  at = put_u64(buf, at, 5);    /* id */
  at = put_u64(buf, at, 17);   /* lost */
  at = put_u32x2(buf, at, 1, 1);
  at = put_u64(buf, at, 99);
  put_header(buf, PERF_RECORD_LOST, 0, at);
  struct bp_rec r;
  CHECK_EQ_INT(bpi_records_parse(&layout, buf, at, &r), BP_OK);
  CHECK_EQ_INT(r.type, BP_REC_LOST);
  CHECK_EQ_INT(r.u.lost.lost, 17);

  put_header(buf, 250, 0, 16);  /* a type from a future kernel */
  CHECK_EQ_INT(bpi_records_parse(&layout, buf, 16, &r), BP_OK);
  CHECK_EQ_INT(r.type, BP_REC_OTHER);
  CHECK_EQ_INT(r.raw_type, 250);
}

static void test_ring_wraparound(void)
{
  struct fake_ring f;
  fake_init(&f);
  struct bp_ring ring;
  bpi_ring_init(&ring, f.mem, DATA_SIZE);
  unsigned char rec[128];
  size_t len = make_sample(rec, 1, 1);  /* 72 bytes */
  const void *got;
  size_t got_len;
  bp_code err;
  int wrapped = 0;
  /* write and read enough records to cross the end several times */
  for(uint64_t i = 0; i < 20; i++) {
    len = make_sample(rec, 1, 1000 + i);
    fake_write(&f, rec, len);
    CHECK(bpi_ring_begin(&ring));
    CHECK(bpi_ring_next(&ring, &got, &got_len, &err));
    CHECK_EQ_INT(got_len, len);
    CHECK(memcmp(got, rec, len) == 0);
    if(got == ring.scratch)
      wrapped++;
    CHECK(!bpi_ring_next(&ring, &got, &got_len, &err));
    CHECK_EQ_INT(err, BP_OK);
    bpi_ring_consume(&ring);
    CHECK_EQ_INT(f.page->data_tail, f.page->data_head);
  }
  CHECK(wrapped > 0);  /* some records straddled the end */
  bpi_ring_cleanup(&ring);
  free(f.mem);
}

static void test_ring_batch_and_partial(void)
{
  struct fake_ring f;
  fake_init(&f);
  struct bp_ring ring;
  bpi_ring_init(&ring, f.mem, DATA_SIZE);
  unsigned char rec[256];
  size_t len = make_comm(rec, "a", false);
  fake_write(&f, rec, len);
  fake_write(&f, rec, len);
  const void *got;
  size_t got_len;
  bp_code err;
  CHECK(bpi_ring_begin(&ring));
  CHECK(bpi_ring_next(&ring, &got, &got_len, &err));
  CHECK(bpi_ring_next(&ring, &got, &got_len, &err));
  CHECK(!bpi_ring_next(&ring, &got, &got_len, &err));
  bpi_ring_consume(&ring);
  CHECK_EQ_INT(ring.corrupt, 0);

  /* a header whose size exceeds what the kernel published: skipped,
   * counted, and the reader does not run past the head */
  len = make_comm(rec, "b", false);
  put_header(rec, PERF_RECORD_COMM, 0, 200);
  fake_write(&f, rec, len);
  CHECK(bpi_ring_begin(&ring));
  CHECK(!bpi_ring_next(&ring, &got, &got_len, &err));
  CHECK_EQ_INT(ring.corrupt, 1);
  CHECK_EQ_INT(ring.tail, f.page->data_head);

  /* a zero-size header cannot loop forever */
  memset(rec, 0, 16);
  fake_write(&f, rec, 16);
  CHECK(bpi_ring_begin(&ring));
  CHECK(!bpi_ring_next(&ring, &got, &got_len, &err));
  CHECK_EQ_INT(ring.corrupt, 2);
  bpi_ring_cleanup(&ring);
  free(f.mem);
}

/* A record of len bytes (a multiple of 8) whose body is a pattern of n. */
static size_t make_record(unsigned char *buf, unsigned n, size_t len)
{
  struct perf_event_header h = {.type = PERF_RECORD_MAX + 7, .misc = 0,
                                .size = (uint16_t)len};
  memcpy(buf, &h, sizeof(h));
  for(size_t i = sizeof(h); i < len; i++)
    buf[i] = (unsigned char)(n * 31 + i);
  return len;
}

/* Read the spill file back through a reader of reader_bytes, handing
 * each record in turn to check(ctx, its index, its bytes); returns how
 * many there were. */
typedef void (*rec_check_fn)(void *ctx, unsigned i, const void *rec,
                             size_t len);

static unsigned read_back(struct bp_spill *sp, uint64_t reader_bytes,
                          rec_check_fn check, void *ctx)
{
  struct bp_ring back;
  CHECK_EQ_INT(bpi_spill_reader(sp, &back, reader_bytes), BP_OK);
  unsigned got = 0;
  bool more = true;
  bp_code err = BP_OK;
  while(more) {
    CHECK_EQ_INT(bpi_spill_refill(sp, &back, &more), BP_OK);
    const void *r;
    size_t len;
    if(!bpi_ring_begin(&back))
      break;
    while(bpi_ring_next(&back, &r, &len, &err))
      check(ctx, got++, r, len);
    bpi_ring_consume(&back);
  }
  /* once more after the last record, as the sampler's next round would:
   * the reader learns they were all consumed */
  CHECK_EQ_INT(bpi_spill_refill(sp, &back, &more), BP_OK);
  CHECK(!more);
  CHECK_EQ_INT(err, BP_OK);
  CHECK_EQ_INT(back.corrupt, 0);
  bpi_ring_cleanup(&back);
  return got;
}

/* Record i of the round trip, byte for byte. */
static void check_pattern(void *ctx, unsigned i, const void *r, size_t len)
{
  unsigned char want[128];
  size_t wlen = make_record(want, i, 16 + 8 * (i % 8));
  CHECK_EQ_INT(len, wlen);
  CHECK(len == wlen && !memcmp(r, want, len));
  (void)ctx;
}

/* Records written to a small ring, spilled in batches that wrap around
 * its end, come back from the file byte for byte, in order: mapped, or
 * (copied) through a reader smaller than the file, so it refills and
 * wraps too. */
static void test_spill_roundtrip(bool copied)
{
  struct fake_ring f;
  fake_init(&f);
  struct bp_ring ring;
  bpi_ring_init(&ring, f.mem, DATA_SIZE);
  struct bp_spill sp;
  bpi_spill_init(&sp, "/tmp");
  unsigned char rec[128];
  const unsigned nrec = 60;
  unsigned n = 0;
  while(n < nrec) {
    /* a batch of up to 3 records (at most 3 x 72 bytes < DATA_SIZE) */
    for(unsigned b = 0; b < 3 && n < nrec; b++, n++)
      fake_write(&f, rec, make_record(rec, n, 16 + 8 * (n % 8)));
    CHECK_EQ_INT(bpi_spill_take(&sp, &ring), BP_OK);
    CHECK_EQ_INT(f.page->data_tail, f.page->data_head);
  }
  sp.no_map = copied;
  CHECK_EQ_INT(read_back(&sp, 128, check_pattern, NULL), nrec);
  CHECK(copied ? sp.map == NULL : sp.map != NULL);
  bpi_ring_cleanup(&ring);
  bpi_spill_cleanup(&sp);
  free(f.mem);
}

/* The layout of samples with user registers and a stack copy. */
static const struct bp_rec_layout stack_layout = {
  .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN |
                 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER,
  .sample_id_all = true,
  .sample_regs_user = 0x7,  /* three registers */
};

/* Sample n with a stack copy of size bytes of which dyn are valid (the
 * rest filled with 0xee, as garbage would be); trimmed: as the spill file
 * should hold it, the copy cut to dyn rounded up to 8 (and no dyn_size
 * field when that is 0). */
static size_t make_stack_sample(unsigned char *buf, unsigned n, size_t size,
                                size_t dyn, bool trimmed)
{
  size_t at = 8;
  at = put_u64(buf, at, 0x401000 + n);       /* ip */
  at = put_u32x2(buf, at, 7, 7 + n % 3);     /* pid, tid */
  at = put_u64(buf, at, 1000 + n);           /* time */
  at = put_u64(buf, at, 1);                  /* period */
  at = put_u64(buf, at, 2);                  /* nr */
  at = put_u64(buf, at, (uint64_t)PERF_CONTEXT_USER);
  at = put_u64(buf, at, 0x401000 + n);
  at = put_u64(buf, at, PERF_SAMPLE_REGS_ABI_64);
  for(unsigned i = 0; i < 3; i++)
    at = put_u64(buf, at, 0x7ffd0000 + n * 16 + i);
  size_t stored = trimmed ? (dyn + 7) & ~(size_t)7 : size;
  at = put_u64(buf, at, stored);
  for(size_t i = 0; i < stored; i++)
    buf[at + i] = i < dyn ? (unsigned char)(n * 7 + i) : 0xee;
  at += stored;
  if(stored)
    at = put_u64(buf, at, dyn);
  put_header(buf, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, at);
  return at;
}

/* The stack copy's size and valid bytes of record n of the trim test. */
static void trim_case(unsigned n, size_t *size, size_t *dyn)
{
  static const size_t dyns[] = {512, 100, 0, 7, 511, 8};
  *size = n % 5 == 4 ? 0 : 512;  /* some samples carry no copy at all */
  *dyn = *size ? dyns[n % 6] : 0;
}

enum { TRIM_RECORDS = 90 };

/* Record i of the trim test as the file should hold it; wrapped[i]: it
 * straddled the ring's end, so it went whole. */
static void check_trimmed(void *ctx, unsigned i, const void *r, size_t len)
{
  const bool *wrapped = ctx;
  CHECK(i < TRIM_RECORDS);
  if(i >= TRIM_RECORDS)
    return;
  unsigned char want[1024];
  size_t size, dyn, wlen;
  trim_case(i, &size, &dyn);
  if(i % 7 == 3)
    wlen = make_comm(want, "worker", false);
  else
    wlen = make_stack_sample(want, i, size, dyn, !wrapped[i]);
  CHECK_EQ_INT(len, wlen);
  CHECK(len == wlen && !memcmp(r, want, len));
  struct bp_rec pr;
  CHECK_EQ_INT(bpi_records_parse(&stack_layout, r, len, &pr), BP_OK);
  if(i % 7 != 3) {
    CHECK_EQ_INT(pr.u.sample.stack_dyn_size, dyn);
    CHECK_EQ_INT(pr.u.sample.nregs, 3);
    CHECK(pr.u.sample.ip == 0x401000 + i);
  }
}

/* Samples whose stack copies are partly invalid go to the file without the
 * invalid bytes, and read back as records the parser takes, with the same
 * fields and valid bytes; a record that wraps around the ring's end, a
 * full copy and other records go as they are.  sp.trimmed counts what was
 * left out. */
static void test_spill_trims_stacks(void)
{
  struct fake_ring f;
  fake_init_size(&f, 4096);
  struct bp_ring ring;
  bpi_ring_init(&ring, f.mem, 4096);
  struct bp_spill sp;
  bpi_spill_init(&sp, "/tmp");
  bpi_spill_trim_stacks(&sp, &stack_layout);
  bool wrapped[TRIM_RECORDS];
  unsigned char rec[1024], trimmed[1024];
  uint64_t dropped = 0;
  unsigned n = 0, nwrapped = 0;
  while(n < TRIM_RECORDS) {
    /* up to 6 records a batch: 6 x 624 bytes < 4096 */
    for(unsigned b = 0; b < 6 && n < TRIM_RECORDS; b++, n++) {
      size_t size, dyn, len;
      trim_case(n, &size, &dyn);
      if(n % 7 == 3)
        len = make_comm(rec, "worker", false);
      else
        len = make_stack_sample(rec, n, size, dyn, false);
      uint64_t off = f.page->data_head % f.size;
      wrapped[n] = off + len > f.size;
      nwrapped += wrapped[n];
      if(n % 7 != 3 && !wrapped[n])
        dropped += len - make_stack_sample(trimmed, n, size, dyn, true);
      fake_write(&f, rec, len);
    }
    CHECK_EQ_INT(bpi_spill_take(&sp, &ring), BP_OK);
    CHECK_EQ_INT(f.page->data_tail, f.page->data_head);
  }
  CHECK(nwrapped > 0);
  CHECK(dropped > 0);
  CHECK_EQ_INT(sp.trimmed, dropped);

  CHECK_EQ_INT(read_back(&sp, 2048, check_trimmed, wrapped), TRIM_RECORDS);
  CHECK_EQ_INT(sp.written, f.page->data_head - dropped);
  bpi_ring_cleanup(&ring);
  bpi_spill_cleanup(&sp);
  free(f.mem);
}

#ifndef __NR_cachestat
#define __NR_cachestat 451  /* x86-64, where the suite runs */
#endif
static bool kernel_has_cachestat(int fd)
{
  struct {
    uint64_t off, len;
  } range = {0, 4096};
  uint64_t st[5];
  return syscall(__NR_cachestat, fd, &range, st, 0) == 0;
}

/* A mapped spill file whose pages were written out and dropped (as memory
 * pressure would) is faulted back in ahead of the reader, with an error
 * rather than a SIGBUS should that fail, and reads back whole; one just
 * written is in memory and read as it is. */
static void test_spill_mapped_after_eviction(void)
{
  /* what is in memory asked of cachestat(2) where the kernel has it, and
   * of mincore() */
  for(int evict = 0; evict < 4; evict++) {
    bool ask_mincore = evict >= 2;
    struct fake_ring f;
    fake_init_size(&f, 1 << 16);
    struct bp_ring ring;
    bpi_ring_init(&ring, f.mem, 1 << 16);
    struct bp_spill sp;
    /* the build directory: a disk, where pages can be dropped (tmpfs
     * keeps them) */
    bpi_spill_init(&sp, ".");
    unsigned char rec[128];
    const unsigned nrec = 3000;  /* about 200 KiB, some pages */
    for(unsigned n = 0; n < nrec;) {
      for(unsigned b = 0; b < 500 && n < nrec; b++, n++)
        fake_write(&f, rec, make_record(rec, n, 16 + 8 * (n % 8)));
      CHECK_EQ_INT(bpi_spill_take(&sp, &ring), BP_OK);
    }
    if(evict % 2) {
      CHECK_EQ_INT(fsync(sp.fd), 0);
      CHECK_EQ_INT(posix_fadvise(sp.fd, 0, 0, POSIX_FADV_DONTNEED), 0);
    }
    sp.no_cachestat = ask_mincore;
    sp.no_map = false;
    CHECK_EQ_INT(read_back(&sp, 128, check_pattern, NULL), nrec);
    CHECK(sp.map != NULL);
    CHECK(sp.checked >= sp.written);
    if(evict % 2)
      CHECK(sp.faulted > 0);  /* dropped pages were faulted back in */
    else
      CHECK_EQ_INT(sp.faulted, 0);
    /* cachestat was used wherever the kernel has it */
    CHECK_EQ_INT(sp.no_cachestat, ask_mincore || !kernel_has_cachestat(sp.fd));
    bpi_ring_cleanup(&ring);
    bpi_spill_cleanup(&sp);
    free(f.mem);
  }
}

/* A spill file that cannot be made leaves the ring's bytes where they
 * are, for reading live. */
static void test_spill_failure_keeps_ring(void)
{
  struct fake_ring f;
  fake_init(&f);
  struct bp_ring ring;
  bpi_ring_init(&ring, f.mem, DATA_SIZE);
  struct bp_spill sp;
  bpi_spill_init(&sp, "/nonexistent-benchprof-dir");
  unsigned char rec[64];
  fake_write(&f, rec, make_record(rec, 1, 64));
  errno = 0;
  CHECK_EQ_INT(bpi_spill_take(&sp, &ring), BPE_IO);
  CHECK_EQ_INT(errno, ENOENT);
  CHECK_EQ_INT(f.page->data_tail, 0);
  const void *r;
  size_t len;
  bp_code err;
  CHECK(bpi_ring_begin(&ring));
  CHECK(bpi_ring_next(&ring, &r, &len, &err) && len == 64 &&
        !memcmp(r, rec, 64));
  bpi_ring_cleanup(&ring);
  bpi_spill_cleanup(&sp);
  free(f.mem);
}

/* A file that takes only part of a large take (the file size limit
 * stands for a disk that fills up): what was written before stays, its
 * space is handed back to the kernel, and the rest is still in the ring,
 * from a record boundary on. */
static void test_spill_partial_failure(void)
{
  const size_t ring_size = 4u << 20, limit = (3u << 20) / 2;
  struct fake_ring f;
  fake_init_size(&f, ring_size);
  struct bp_ring ring;
  bpi_ring_init(&ring, f.mem, ring_size);
  struct bp_spill sp;
  bpi_spill_init(&sp, "/tmp");
  unsigned char rec[128];
  unsigned n = 0;
  while(f.page->data_head < 3u << 20) {
    fake_write(&f, rec, make_record(rec, n, 16 + 8 * (n % 8)));
    n++;
  }
  struct rlimit old, lim;
  CHECK(!getrlimit(RLIMIT_FSIZE, &old));
  lim = old;
  lim.rlim_cur = limit;
  void (*old_xfsz)(int) = signal(SIGXFSZ, SIG_IGN);
  CHECK(!setrlimit(RLIMIT_FSIZE, &lim));
  bp_code rc = bpi_spill_take(&sp, &ring);
  CHECK(!setrlimit(RLIMIT_FSIZE, &old));
  signal(SIGXFSZ, old_xfsz);
  CHECK_EQ_INT(rc, BPE_IO);
  /* the first megabyte-sized write went in, the second did not */
  CHECK(sp.written >= 1u << 20 && sp.written < limit);
  CHECK_EQ_INT(f.page->data_tail, sp.written);
  struct stat st;
  CHECK(!fstat(sp.fd, &st) && (uint64_t)st.st_size == sp.written);
  /* the ring goes on with the record after the last one written */
  unsigned kept = 0;
  for(uint64_t at = 0; at < sp.written; kept++)
    at += 16 + 8 * (kept % 8);
  const void *r;
  size_t len;
  bp_code err;
  unsigned char want[128];
  CHECK(bpi_ring_begin(&ring));
  CHECK(bpi_ring_next(&ring, &r, &len, &err) &&
        len == make_record(want, kept, 16 + 8 * (kept % 8)) &&
        !memcmp(r, want, len));
  CHECK_EQ_INT(read_back(&sp, 1u << 20, check_pattern, NULL), kept);
  CHECK(kept < n);
  bpi_ring_cleanup(&ring);
  bpi_spill_cleanup(&sp);
  free(f.mem);
}

/* Large records for the freer's files: n's pattern, FREER_REC bytes. */
#define FREER_REC 4000
static size_t make_big_record(unsigned char *buf, unsigned n)
{
  struct perf_event_header h = {.type = PERF_RECORD_MAX + 9, .misc = 0,
                                .size = FREER_REC};
  memcpy(buf, &h, sizeof(h));
  for(size_t i = sizeof(h); i < FREER_REC; i++)
    buf[i] = (unsigned char)(n * 13 + i * 7);
  return FREER_REC;
}

static void check_big(void *ctx, unsigned i, const void *r, size_t len)
{
  unsigned *limit = ctx;
  unsigned char want[FREER_REC];
  make_big_record(want, i);
  CHECK_EQ_INT(len, FREER_REC);
  CHECK(len == FREER_REC && !memcmp(r, want, len));
  CHECK(i < *limit);
}

/* Blocks (512 bytes) the file holds, in memory or on the disk. */
static uint64_t file_blocks(int fd)
{
  struct stat st;
  CHECK(!fstat(fd, &st));
  return (uint64_t)st.st_blocks;
}

/* Whether the file system of dir lets a file's middle be punched out. */
static bool punch_works(const char *dir)
{
  char path[64];
  snprintf(path, sizeof(path), "%s/punch-probe.XXXXXX", dir);
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  unlink(path);
  static char page[1 << 16];
  CHECK(write(fd, page, sizeof(page)) == (ssize_t)sizeof(page));
  bool ok = !fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
                       sizeof(page));
  close(fd);
  return ok;
}

/* Wait (up to 10 s) for the file to hold at most want blocks. */
static uint64_t wait_blocks(int fd, uint64_t want)
{
  uint64_t b = file_blocks(fd);
  for(int i = 0; i < 1000 && b > want; i++) {
    nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    b = file_blocks(fd);
  }
  return b;
}

/* The freer (spill.h): a helper process punches out what the readers are
 * done with while they read on, and the records still read back byte for
 * byte, mapped and copied; a file read half way keeps its second half;
 * the helper holds no other descriptor of ours, and is gone once
 * finished. */
static void test_spill_freer(bool copied)
{
  enum { FILES = 2, RECORDS = 6000 };  /* 24 MB each: some FREE_STEPs */
  struct bp_spill sps[FILES];
  unsigned char rec[FREER_REC];
  for(unsigned k = 0; k < FILES; k++) {
    struct fake_ring f;
    fake_init_size(&f, 1 << 20);
    struct bp_ring ring;
    bpi_ring_init(&ring, f.mem, 1 << 20);
    /* the build directory: a disk, as $TMPDIR is on a runner */
    bpi_spill_init(&sps[k], ".");
    for(unsigned n = 0; n < RECORDS;) {
      for(unsigned b = 0; b < 200 && n < RECORDS; b++, n++)
        fake_write(&f, rec, make_big_record(rec, n));
      CHECK_EQ_INT(bpi_spill_take(&sps[k], &ring), BP_OK);
    }
    bpi_ring_cleanup(&ring);
    free(f.mem);
    sps[k].no_map = copied;
  }
  uint64_t full = file_blocks(sps[0].fd);
  CHECK(full >= (uint64_t)RECORDS * FREER_REC / 512);
  /* a pipe of ours: the helper must not keep its write end open */
  int pfd[2];
  CHECK(!pipe(pfd));
  struct bp_spill_freer fr;
  CHECK(bpi_spill_freer_start(&fr, sps, FILES));
  CHECK(fr.pid > 0);
  close(pfd[1]);
  fcntl(pfd[0], F_SETFL, O_NONBLOCK);
  char c;
  ssize_t eof = -1;
  for(int i = 0; i < 1000 && eof < 0; i++) {  /* it closes them at once */
    eof = read(pfd[0], &c, 1);
    if(eof < 0)
      nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
  }
  CHECK_EQ_INT(eof, 0);
  close(pfd[0]);

  unsigned all = RECORDS;
  CHECK_EQ_INT(read_back(&sps[0], 1 << 20, check_big, &all), RECORDS);
  /* half of the second file: read_back stops at the limit's record */
  struct bp_ring back;
  CHECK_EQ_INT(bpi_spill_reader(&sps[1], &back, 1 << 20), BP_OK);
  unsigned got = 0, half = RECORDS / 2;
  bool more = true;
  bp_code err = BP_OK;
  while(more && got < half) {
    CHECK_EQ_INT(bpi_spill_refill(&sps[1], &back, &more), BP_OK);
    const void *r;
    size_t len;
    if(!bpi_ring_begin(&back))
      break;
    while(got < half && bpi_ring_next(&back, &r, &len, &err))
      check_big(&all, got++, r, len);
    bpi_ring_consume(&back);
  }
  CHECK_EQ_INT(bpi_spill_refill(&sps[1], &back, &more), BP_OK);
  CHECK_EQ_INT(got, half);
  if(punch_works(".")) {
    /* the whole of the first file punched out (its last page may be in
     * the block of the last step), the second from its middle on kept */
    CHECK(wait_blocks(sps[0].fd, full / 16) <= full / 16);
    uint64_t b1 = wait_blocks(sps[1].fd, full * 3 / 4);
    CHECK(b1 <= full * 3 / 4);
    CHECK(b1 >= full / 2 - full / 16);
  }
  else {
    /* a file system that cannot: the close frees them, as before */
    CHECK_EQ_INT(file_blocks(sps[0].fd), full);
  }
  pid_t pid = fr.pid;
  bpi_ring_cleanup(&back);
  for(unsigned k = 0; k < FILES; k++)
    bpi_spill_cleanup(&sps[k]);
  bpi_spill_freer_finish(&fr);
  CHECK_EQ_INT(fr.pid, -1);
  errno = 0;
  CHECK(waitpid(pid, NULL, WNOHANG) < 0 && errno == ECHILD);  /* reaped */
}

/* Memory first (spill.h): with a budget for about a third of the
 * records, the file's first bytes go to memory and the rest to the disk,
 * the budget shared by two files; with room for all, none go to the
 * disk; with none, all do.  Either way the records come back byte for
 * byte (mapped where one part holds them all, else copied), and the freer
 * punches out both parts. */
enum { MEM_RECORDS = 3000 };  /* 12 MB: a FREE_STEP in each part */

/* refuse: after this many records the memory file refuses writes (its
 * descriptor made read-only, the same file), as a full memory would. */
static void spill_big_refused(struct bp_spill *sp, struct bp_spill_memory *m,
                              unsigned refuse)
{
  struct fake_ring f;
  fake_init_size(&f, 1 << 20);
  struct bp_ring ring;
  bpi_ring_init(&ring, f.mem, 1 << 20);
  bpi_spill_init(sp, ".");
  bpi_spill_use_memory(sp, m);
  unsigned char rec[FREER_REC];
  bool refused = false;
  for(unsigned n = 0; n < MEM_RECORDS;) {
    if(n >= refuse && !refused) {
      refused = true;
      CHECK(sp->mem_fd >= 0);
      char self[64];
      snprintf(self, sizeof(self), "/proc/self/fd/%d", sp->mem_fd);
      int ro = open(self, O_RDONLY | O_CLOEXEC);
      CHECK(ro >= 0 && dup2(ro, sp->mem_fd) == sp->mem_fd);
      close(ro);
    }
    for(unsigned b = 0; b < 200 && n < MEM_RECORDS; b++, n++)
      fake_write(&f, rec, make_big_record(rec, n));
    CHECK_EQ_INT(bpi_spill_take(sp, &ring), BP_OK);
  }
  bpi_ring_cleanup(&ring);
  free(f.mem);
}

static void spill_big(struct bp_spill *sp, struct bp_spill_memory *m)
{
  spill_big_refused(sp, m, MEM_RECORDS);
}

static void test_spill_memory_first(bool copied)
{
  const uint64_t all = (uint64_t)MEM_RECORDS * FREER_REC;
  /* a third of one file: the first file takes it all, the second none */
  struct bp_spill_memory m = {.left = all / 3};
  struct bp_spill sps[2];
  spill_big(&sps[0], &m);
  spill_big(&sps[1], &m);
  CHECK(sps[0].mem_len > 0 && sps[0].mem_len <= all / 3);
  CHECK(sps[0].mem_len + m.left == all / 3);
  CHECK(sps[0].fd >= 0 && sps[0].mem_fd >= 0);
  CHECK_EQ_INT(sps[0].written, all);
  CHECK_EQ_INT(file_blocks(sps[0].fd) * 512 >= all - sps[0].mem_len, 1);
  CHECK_EQ_INT(sps[1].mem_len, 0);  /* what was left could not hold a take */
  CHECK(sps[1].mem_fd < 0 && sps[1].fd >= 0);
  struct bp_spill_freer fr;
  CHECK(bpi_spill_freer_start(&fr, sps, 2));
  for(unsigned k = 0; k < 2; k++) {
    sps[k].no_map = copied;
    unsigned limit = MEM_RECORDS;
    CHECK_EQ_INT(read_back(&sps[k], 1 << 20, check_big, &limit),
                 MEM_RECORDS);
    /* the first is in two parts: copied even when it could be mapped */
    CHECK(k == 0 || copied ? sps[k].map == NULL : sps[k].map != NULL);
  }
  /* read: both parts of the first file punched out */
  CHECK(wait_blocks(sps[0].mem_fd, 16) <= 16);
  if(punch_works("."))
    CHECK(wait_blocks(sps[0].fd, all / 512 / 16) <= all / 512 / 16);
  for(unsigned k = 0; k < 2; k++)
    bpi_spill_cleanup(&sps[k]);
  bpi_spill_freer_finish(&fr);

  /* room for all: nothing on the disk; read back mapped unless copied */
  m.left = 2 * all;
  spill_big(&sps[0], &m);
  CHECK_EQ_INT(sps[0].mem_len, all);
  CHECK_EQ_INT(m.left, all);
  CHECK(sps[0].fd < 0);
  sps[0].no_map = copied;
  unsigned limit = MEM_RECORDS;
  CHECK_EQ_INT(read_back(&sps[0], 1 << 20, check_big, &limit), MEM_RECORDS);
  CHECK(copied ? sps[0].map == NULL : sps[0].map != NULL);
  bpi_spill_cleanup(&sps[0]);

  /* memory refuses a write half way: that batch and the rest go to the
   * disk, nothing lost or out of order */
  m.left = 2 * all;
  spill_big_refused(&sps[0], &m, MEM_RECORDS / 2);
  CHECK(sps[0].mem_done && sps[0].fd >= 0);
  CHECK(sps[0].mem_len > 0 && sps[0].mem_len < all);
  CHECK_EQ_INT(m.left, 2 * all - sps[0].mem_len);
  CHECK_EQ_INT(read_back(&sps[0], 1 << 20, check_big, &limit), MEM_RECORDS);
  bpi_spill_cleanup(&sps[0]);

  /* none: all on the disk, no memory file made */
  m.left = 0;
  spill_big(&sps[0], &m);
  CHECK(sps[0].mem_fd < 0 && sps[0].mem_len == 0 && sps[0].fd >= 0);
  CHECK_EQ_INT(read_back(&sps[0], 1 << 20, check_big, &limit), MEM_RECORDS);
  bpi_spill_cleanup(&sps[0]);
}

/* The budget shrinks with the machine's available memory (a benchmark
 * taking its memory during the run): checked every check_every bytes,
 * the files then hold at most a quarter of what is available plus what
 * they hold.  Here the machine has plenty, then little: memory stops
 * being taken at the first check after, the rest goes to the disk and
 * every record comes back. */
static uint64_t fake_available;
static unsigned fake_reads;

static uint64_t fake_mem_available(void)
{
  fake_reads++;
  return fake_available;
}

static void test_spill_memory_shrinks(void)
{
  const uint64_t all = (uint64_t)MEM_RECORDS * FREER_REC;
  struct bp_spill_memory m = {.left = 2 * all, .check_every = all / 8,
                              .available = fake_mem_available};
  struct bp_spill sp;
  fake_available = 100 * all;  /* plenty: the budget stays */
  fake_reads = 0;
  spill_big(&sp, &m);
  CHECK(fake_reads >= 4);
  CHECK_EQ_INT(sp.mem_len, all);
  CHECK_EQ_INT(m.left, all);
  CHECK_EQ_INT(m.taken, all);
  bpi_spill_cleanup(&sp);

  /* little available: a quarter of (available + taken) is below what is
   * taken already, so none is left after the first check */
  m = (struct bp_spill_memory){.left = 2 * all, .check_every = all / 4,
                               .available = fake_mem_available};
  fake_available = all / 2;
  fake_reads = 0;
  spill_big(&sp, &m);
  CHECK_EQ_INT(fake_reads, 1);
  CHECK(sp.mem_len >= all / 4 && sp.mem_len < all / 2);
  CHECK_EQ_INT(m.left, 0);
  CHECK(sp.fd >= 0 && sp.written == all);
  unsigned limit = MEM_RECORDS;
  CHECK_EQ_INT(read_back(&sp, 1 << 20, check_big, &limit), MEM_RECORDS);
  bpi_spill_cleanup(&sp);

  /* some room: the budget becomes what a quarter leaves */
  m = (struct bp_spill_memory){.left = 2 * all, .check_every = all / 4,
                               .available = fake_mem_available};
  fake_available = 3 * all;  /* at the check: cap (3 + 1/4) / 4 of all */
  spill_big(&sp, &m);
  CHECK(sp.mem_len > all / 4 && sp.mem_len <= all * 13 / 16);
  CHECK(sp.fd >= 0 && sp.written == all);
  CHECK_EQ_INT(read_back(&sp, 1 << 20, check_big, &limit), MEM_RECORDS);
  bpi_spill_cleanup(&sp);
}

/* A recording's budget is read when it first spills (unsized): a file
 * never written never reads MemAvailable; the first take sizes it to a
 * quarter of what is available then, which the take then uses. */
static void test_spill_memory_unsized(void)
{
  const uint64_t all = (uint64_t)MEM_RECORDS * FREER_REC;
  struct bp_spill_memory m = {.unsized = true, .check_every = 4 * all,
                              .available = fake_mem_available};
  struct bp_spill idle, sp;
  fake_reads = 0;
  bpi_spill_init(&idle, ".");
  bpi_spill_use_memory(&idle, &m);
  struct fake_ring f;  /* an empty ring: a take with nothing to move */
  fake_init_size(&f, 1 << 16);
  struct bp_ring ring;
  bpi_ring_init(&ring, f.mem, 1 << 16);
  CHECK_EQ_INT(bpi_spill_take(&idle, &ring), BP_OK);
  bpi_ring_cleanup(&ring);
  free(f.mem);
  CHECK_EQ_INT(idle.written, 0);
  bpi_spill_cleanup(&idle);
  CHECK_EQ_INT(fake_reads, 0);  /* nothing spilled: never read */
  CHECK(m.unsized);
  fake_available = 2 * all;     /* a quarter: half of the records */
  spill_big(&sp, &m);
  CHECK_EQ_INT(fake_reads, 1);
  CHECK(!m.unsized);
  CHECK(sp.mem_len > 0 && sp.mem_len <= all / 2);
  CHECK_EQ_INT(sp.mem_len + m.left, all / 2);
  CHECK(sp.fd >= 0 && sp.written == all);
  unsigned limit = MEM_RECORDS;
  CHECK_EQ_INT(read_back(&sp, 1 << 20, check_big, &limit), MEM_RECORDS);
  bpi_spill_cleanup(&sp);
}

int main(void)
{
  test_parse_sample();
  test_parse_truncated_sample();
  test_parse_comm_mmap();
  test_parse_lost_unknown();
  test_ring_wraparound();
  test_ring_batch_and_partial();
  test_spill_roundtrip(false);
  test_spill_roundtrip(true);
  test_spill_trims_stacks();
  test_spill_mapped_after_eviction();
  test_spill_failure_keeps_ring();
  test_spill_partial_failure();
  test_spill_freer(false);
  test_spill_freer(true);
  test_spill_memory_first(false);
  test_spill_memory_first(true);
  test_spill_memory_shrinks();
  test_spill_memory_unsized();
  return check_exit();
}

/* Unit test of LBR call stacks (records.c): a sample record with a
 * PERF_SAMPLE_BRANCH_STACK, built by hand as the kernel writes it, parses
 * into its branch entries, and bpi_records_lbr_chain() turns those into
 * the call chain perf makes of them: the kernel part of the callchain,
 * PERF_CONTEXT_USER, the user leaf, then the `from` of every entry.  Then
 * through the converter: with this program's own text mapped, the LBR
 * entries' call instructions are symbolized where they are (not one byte
 * before, as return addresses are), so the stack names the callers.
 * And hand-built switch and fork records through the converter with
 * --off-cpu: a tid the kernel reuses does not close a stale interval.
 * And an exec: the samples taken while the kernel loads the new image
 * name their execve call from the image it replaced, until one shows the
 * new image running; addresses in no mapping, and in anonymous memory
 * that nothing names, are one function each, whatever the address. */
#include "bp_setup.h"
#include "records.h"

#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "check.h"
#include "converter.h"
#include "profile.h"
#include "symbols.h"

#define SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
                     PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN |          \
                     PERF_SAMPLE_BRANCH_STACK)

struct rec {
  uint64_t w[64];
  size_t n;
};

static void put(struct rec *r, uint64_t v)
{
  r->w[r->n++] = v;
}

/* A sample record: header, ip, pid/tid, time, period, the callchain, the
 * branch stack (hw_index first with PERF_SAMPLE_BRANCH_HW_INDEX). */
static size_t build(struct rec *r, uint16_t misc, uint64_t ip,
                    const uint64_t *chain, size_t nchain,
                    const uint64_t (*br)[2], size_t nbr, bool hw_index)
{
  memset(r, 0, sizeof(*r));
  put(r, 0);  /* header, filled below */
  put(r, ip);
  put(r, (uint64_t)4242 << 32 | 4242);  /* tid << 32 | pid */
  put(r, 1000);                         /* time */
  put(r, 12345);                        /* period */
  put(r, nchain);
  for(size_t i = 0; i < nchain; i++)
    put(r, chain[i]);
  put(r, nbr);
  if(hw_index)
    put(r, 7);
  for(size_t i = 0; i < nbr; i++) {
    put(r, br[i][0]);  /* from */
    put(r, br[i][1]);  /* to */
    put(r, 0);         /* flags */
  }
  struct perf_event_header h = {
    .type = PERF_RECORD_SAMPLE, .misc = misc,
    .size = (uint16_t)(r->n * 8),
  };
  memcpy(&r->w[0], &h, sizeof(h));
  return r->n * 8;
}

static const struct bp_rec_layout layout = {
  .sample_type = SAMPLE_TYPE, .sample_id_all = true,
  .branch_sample_type = PERF_SAMPLE_BRANCH_CALL_STACK |
                        PERF_SAMPLE_BRANCH_USER,
};

/* leaf in main-loop code, called from c <- b <- a (innermost first) */
static const uint64_t branches[][2] = {
  {0x401100, 0x401800},  /* call in c's caller b: to the leaf function */
  {0x401200, 0x401a00},  /* call in a, to b */
  {0x401300, 0x401c00},  /* call in main, to a */
};

static void test_user_sample(void)
{
  struct rec r;
  struct bp_rec out;
  uint64_t fp[] = {(uint64_t)PERF_CONTEXT_USER, 0x401810, 0x401105};
  size_t len = build(&r, PERF_RECORD_MISC_USER, 0x401810, fp, 3, branches, 3,
                     false);
  CHECK_EQ_INT(bpi_records_parse(&layout, r.w, len, &out), BP_OK);
  CHECK_EQ_INT(out.type, BP_REC_SAMPLE);
  CHECK_EQ_INT(out.u.sample.nbranches, 3);
  CHECK_EQ_INT(out.u.sample.branches[3], 0x401200);   /* second from */
  CHECK_EQ_INT(out.u.sample.branches[4], 0x401a00);   /* its to */
  CHECK_EQ_INT(out.u.sample.period, 12345);

  uint64_t chain[16];
  size_t n = bpi_records_lbr_chain(&out.u.sample, chain, 16);
  CHECK_EQ_INT(n, 5);
  CHECK(chain[0] == (uint64_t)PERF_CONTEXT_USER);
  CHECK_EQ_INT(chain[1], 0x401810);  /* the leaf: the sample's ip */
  CHECK_EQ_INT(chain[2], 0x401100);  /* then the call instructions */
  CHECK_EQ_INT(chain[3], 0x401200);
  CHECK_EQ_INT(chain[4], 0x401300);

  /* a chain cut at max: the leaf and the innermost callers first */
  n = bpi_records_lbr_chain(&out.u.sample, chain, 3);
  CHECK_EQ_INT(n, 3);
  CHECK_EQ_INT(chain[2], 0x401100);
}

static void test_kernel_sample(void)
{
  /* stopped in a system call: kernel frames, then the user part */
  struct rec r;
  struct bp_rec out;
  uint64_t fp[] = {(uint64_t)PERF_CONTEXT_KERNEL, 0xffffffff81000010ULL,
                   0xffffffff81000020ULL, (uint64_t)PERF_CONTEXT_USER,
                   0x401820, 0x401105};
  size_t len = build(&r, PERF_RECORD_MISC_KERNEL, 0xffffffff81000010ULL, fp,
                     6, branches, 2, false);
  CHECK_EQ_INT(bpi_records_parse(&layout, r.w, len, &out), BP_OK);
  uint64_t chain[16];
  size_t n = bpi_records_lbr_chain(&out.u.sample, chain, 16);
  CHECK_EQ_INT(n, 7);
  CHECK(chain[0] == (uint64_t)PERF_CONTEXT_KERNEL);
  CHECK(chain[1] == 0xffffffff81000010ULL);
  CHECK(chain[2] == 0xffffffff81000020ULL);
  CHECK(chain[3] == (uint64_t)PERF_CONTEXT_USER);
  CHECK_EQ_INT(chain[4], 0x401820);  /* user leaf from the callchain */
  CHECK_EQ_INT(chain[5], 0x401100);
  CHECK_EQ_INT(chain[6], 0x401200);
}

static void test_no_branches_and_hw_index(void)
{
  struct rec r;
  struct bp_rec out;
  uint64_t fp[] = {(uint64_t)PERF_CONTEXT_USER, 0x401810, 0x401105};
  uint64_t chain[16];
  /* an empty LBR: no chain, the callchain stands */
  size_t len = build(&r, PERF_RECORD_MISC_USER, 0x401810, fp, 3, branches, 0,
                     false);
  CHECK_EQ_INT(bpi_records_parse(&layout, r.w, len, &out), BP_OK);
  CHECK_EQ_INT(out.u.sample.nbranches, 0);
  CHECK_EQ_INT(bpi_records_lbr_chain(&out.u.sample, chain, 16), 0);

  /* PERF_SAMPLE_BRANCH_HW_INDEX puts a u64 before the entries */
  struct bp_rec_layout hw = layout;
  hw.branch_sample_type |= PERF_SAMPLE_BRANCH_HW_INDEX;
  len = build(&r, PERF_RECORD_MISC_USER, 0x401810, fp, 3, branches, 3, true);
  CHECK_EQ_INT(bpi_records_parse(&hw, r.w, len, &out), BP_OK);
  CHECK_EQ_INT(out.u.sample.nbranches, 3);
  CHECK_EQ_INT(out.u.sample.branches[0], 0x401100);

  /* a branch count past the record's end is a bad record, not a read
   * past it */
  len = build(&r, PERF_RECORD_MISC_USER, 0x401810, fp, 3, branches, 3, false);
  r.w[1 + 4 + 1 + 3] = 1000;  /* the branch count */
  CHECK_EQ_INT(bpi_records_parse(&layout, r.w, len, &out), BPE_FORMAT);
}

/* Three functions one after another in this program's text: an LBR
 * entry's `from` at the very start of one is inside it, one byte before
 * is not. */
int bp_lbr_leaf(int x);
int bp_lbr_middle(int x);
int bp_lbr_outer(int x);
__attribute__((noinline)) int bp_lbr_leaf(int x)
{
  return x * 3 + 1;
}

__attribute__((noinline)) int bp_lbr_middle(int x)
{
  return bp_lbr_leaf(x) + 2;
}

__attribute__((noinline)) int bp_lbr_outer(int x)
{
  return bp_lbr_middle(x) * 5;
}

#define PID 4242u

/* An MMAP2 record of the mapping of this program that holds addr, from
 * /proc/self/maps; its length in *len, 0 when not found. */
static size_t mmap2_of(uint64_t addr, uint64_t *rec, size_t max)
{
  FILE *f = fopen("/proc/self/maps", "r");
  char line[512], path[256] = "";
  unsigned long long start = 0, end = 0, pgoff = 0;
  bool found = false;
  while(f && fgets(line, sizeof(line), f)) {
    if(sscanf(line, "%llx-%llx %*s %llx %*s %*s %255s", &start, &end, &pgoff,
              path) == 4 && addr >= start && addr < end) {
      found = true;
      break;
    }
  }
  if(f)
    fclose(f);
  struct stat st;
  if(!found || stat(path, &st) != 0)
    return 0;
  size_t plen = strlen(path) + 1, pw = (plen + 7) / 8;
  size_t n = 1 + 1 + 3 + 3 + 1 + pw + 2;  /* header .. name, sample id */
  if(n > max)
    return 0;
  memset(rec, 0, n * 8);
  rec[1] = (uint64_t)PID << 32 | PID;
  rec[2] = start;
  rec[3] = end - start;
  rec[4] = pgoff;
  uint32_t maj = major(st.st_dev), min = minor(st.st_dev);
  memcpy(&rec[5], &maj, 4);
  memcpy((char *)&rec[5] + 4, &min, 4);
  rec[6] = st.st_ino;
  rec[7] = 0;                         /* inode generation */
  rec[8] = 5 | (uint64_t)2 << 32;     /* PROT_READ|PROT_EXEC, MAP_PRIVATE */
  memcpy(&rec[9], path, plen);
  rec[9 + pw] = (uint64_t)PID << 32 | PID;  /* sample id: pid, tid */
  rec[10 + pw] = 1;                         /* time */
  struct perf_event_header h = {PERF_RECORD_MMAP2, 0, (uint16_t)(n * 8)};
  memcpy(&rec[0], &h, sizeof(h));
  return n * 8;
}

static const char *frame_name(const struct bp_profile *p, uint32_t frame)
{
  uint32_t func = p->frames[frame].func;
  return func == BP_NONE ? "(none)"
                         : bpi_profile_str(p, p->funcs[func].name);
}

static void test_converter_callers(void)
{
  struct bp_profile *p = NULL;
  struct bp_symbols *sym = NULL;
  struct bp_converter *c = NULL;
  struct bp_symbols_opts so = {.demangle = true};
  struct bp_err err = {0};
  uint64_t leaf = (uint64_t)(uintptr_t)&bp_lbr_leaf;
  uint64_t middle = (uint64_t)(uintptr_t)&bp_lbr_middle;
  uint64_t outer = (uint64_t)(uintptr_t)&bp_lbr_outer;
  CHECK_EQ_INT(bp_lbr_outer(1), 30);  /* they run */

  CHECK_EQ_INT(bpi_profile_new(&p), BP_OK);
  CHECK_EQ_INT(bpi_symbols_new(&sym, &so), BP_OK);
  CHECK_EQ_INT(bpi_converter_new(&c, p, sym, &layout, BP_CALL_GRAPH_LBR),
               BP_OK);
  uint64_t mm[64];
  size_t mlen = mmap2_of(leaf, mm, 64);
  CHECK(mlen > 0);
  if(mlen)
    CHECK_EQ_INT(bpi_converter_record(c, mm, mlen), BP_OK);

  /* two samples in bp_lbr_leaf: called from the first byte of
   * bp_lbr_middle, itself called from the first byte of bp_lbr_outer
   * (not where a compiler puts calls: where ip - 1 would leave the
   * function) */
  const uint64_t br[][2] = {{middle, leaf}, {outer, middle}};
  uint64_t fp[] = {(uint64_t)PERF_CONTEXT_USER, leaf + 1};
  struct rec r;
  for(int i = 0; i < 2; i++) {
    size_t len = build(&r, PERF_RECORD_MISC_USER, leaf + 1, fp, 2, br, 2,
                       false);
    CHECK_EQ_INT(bpi_converter_record(c, r.w, len), BP_OK);
  }
  CHECK_EQ_INT(bpi_converter_finish(c, &err), BP_OK);

  CHECK_EQ_INT(p->ncounts, 1);  /* both samples: one stack */
  if(p->ncounts == 1) {
    CHECK_EQ_INT(p->counts[0].count, 2);
    const char *want[] = {"bp_lbr_leaf", "bp_lbr_middle", "bp_lbr_outer"};
    uint32_t st = p->counts[0].stack;
    for(size_t i = 0; i < 3; i++) {
      CHECK(st != BP_NONE);
      if(st == BP_NONE)
        break;
      const char *name = frame_name(p, p->stacks[st].frame);
      if(strcmp(name, want[i]))
        fprintf(stderr, "frame %zu: %s, expected %s\n", i, name, want[i]);
      CHECK_EQ_STR(name, want[i]);
      st = p->stacks[st].parent;
    }
    CHECK(st == BP_NONE);  /* nothing above the outermost LBR entry */
  }
  bpi_converter_free(c);
  bpi_symbols_free(sym);
  bpi_profile_free(p);
}

/* A record with no sample body: header, words, then the sample id
 * (pid/tid, time: the layout's TID and TIME). */
static size_t other_rec(struct rec *r, uint32_t type, uint16_t misc,
                        const uint64_t *words, size_t n, uint32_t tid,
                        uint64_t time)
{
  memset(r, 0, sizeof(*r));
  put(r, 0);
  for(size_t i = 0; i < n; i++)
    put(r, words[i]);
  put(r, (uint64_t)tid << 32 | 4242);
  put(r, time);
  struct perf_event_header h = {.type = type, .misc = misc,
                                .size = (uint16_t)(r->n * 8)};
  memcpy(&r->w[0], &h, sizeof(h));
  return r->n * 8;
}

/* --off-cpu: thread 4243 is switched out and exits (no switch-in); the
 * kernel gives its tid to a new thread (FORK), whose first switch-in
 * must not close the old thread's interval: no wait at all. */
static void test_off_cpu_reused_tid(void)
{
  struct bp_profile *p = NULL;
  struct bp_symbols *sym = NULL;
  struct bp_converter *c = NULL;
  struct bp_symbols_opts so = {.demangle = true};
  struct bp_err err = {0};
  struct rec r;
  CHECK_EQ_INT(bpi_profile_new(&p), BP_OK);
  CHECK_EQ_INT(bpi_symbols_new(&sym, &so), BP_OK);
  CHECK_EQ_INT(bpi_converter_new(&c, p, sym, &layout, BP_CALL_GRAPH_LBR),
               BP_OK);
  if(!c) {
    bpi_symbols_free(sym);
    bpi_profile_free(p);
    return;
  }
  bpi_converter_off_cpu(c, NULL, 0);
  size_t len = other_rec(&r, PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT,
                         NULL, 0, 4243, 1000);
  CHECK_EQ_INT(bpi_converter_record(c, r.w, len), BP_OK);
  /* fork: pid, ppid, tid, ptid (u32 each), time */
  uint64_t fork[] = {(uint64_t)4242 << 32 | 4242,
                     (uint64_t)4242 << 32 | 4243, 5000};
  len = other_rec(&r, PERF_RECORD_FORK, 0, fork, 3, 4243, 5000);
  CHECK_EQ_INT(bpi_converter_record(c, r.w, len), BP_OK);
  len = other_rec(&r, PERF_RECORD_SWITCH, 0, NULL, 0, 4243, 6000);
  CHECK_EQ_INT(bpi_converter_record(c, r.w, len), BP_OK);
  CHECK_EQ_INT(bpi_converter_bad_records(c), 0);
  CHECK_EQ_INT(p->noff_counts, 0);
  /* a wait of the new thread is one: out at 7000, back at 7500 */
  len = other_rec(&r, PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT, NULL,
                  0, 4243, 7000);
  CHECK_EQ_INT(bpi_converter_record(c, r.w, len), BP_OK);
  len = other_rec(&r, PERF_RECORD_SWITCH, 0, NULL, 0, 4243, 7500);
  CHECK_EQ_INT(bpi_converter_record(c, r.w, len), BP_OK);
  uint64_t pre;
  CHECK(bpi_profile_off_ns(p, &pre) == 500);
  CHECK_EQ_INT(bpi_converter_finish(c, &err), BP_OK);
  bpi_converter_free(c);
  bpi_symbols_free(sym);
  bpi_profile_free(p);
}

/* An MMAP2 record of anonymous executable memory at [start, start + len). */
static size_t anon_mmap2(struct rec *r, uint64_t start, uint64_t len)
{
  uint64_t words[] = {
    (uint64_t)PID << 32 | PID, start, len, 0,
    0, 0, 0,                         /* maj/min, inode, its generation */
    7 | (uint64_t)0x22 << 32,        /* PROT_READ|WRITE|EXEC, anonymous */
    0,                               /* "//anon", filled below */
  };
  memcpy(&words[8], "//anon", 7);
  return other_rec(r, PERF_RECORD_MMAP2, 0, words, 9, PID, 2);
}

/* A sample stopped in the kernel, its user-space part at user_ip. */
static size_t syscall_sample(struct rec *r, uint64_t user_ip)
{
  uint64_t chain[] = {(uint64_t)PERF_CONTEXT_KERNEL, 0xffffffff81000010ULL,
                      (uint64_t)PERF_CONTEXT_USER, user_ip};
  return build(r, PERF_RECORD_MISC_KERNEL, 0xffffffff81000010ULL, chain, 4,
               NULL, 0, false);
}

/* The outermost frame of a stack: the sample's user-space one here. */
static uint32_t root_frame(const struct bp_profile *p, uint32_t stack)
{
  while(p->stacks[stack].parent != BP_NONE)
    stack = p->stacks[stack].parent;
  return p->stacks[stack].frame;
}

static void test_converter_exec(void)
{
  struct bp_profile *p = NULL;
  struct bp_symbols *sym = NULL;
  struct bp_converter *c = NULL;
  struct bp_symbols_opts so = {.demangle = true};
  struct bp_err err = {0};
  struct rec r;
  uint64_t leaf = (uint64_t)(uintptr_t)&bp_lbr_leaf;
  CHECK_EQ_INT(bpi_profile_new(&p), BP_OK);
  CHECK_EQ_INT(bpi_symbols_new(&sym, &so), BP_OK);
  CHECK_EQ_INT(bpi_converter_new(&c, p, sym, &layout, BP_CALL_GRAPH_FP),
               BP_OK);
  if(!c) {
    bpi_symbols_free(sym);
    bpi_profile_free(p);
    return;
  }
  uint64_t mm[64];
  size_t len = mmap2_of(leaf, mm, 64);
  CHECK(len > 0);
  if(len)
    CHECK_EQ_INT(bpi_converter_record(c, mm, len), BP_OK);
  /* the exec: the kernel's COMM record (pid, tid, the new name) */
  uint64_t comm[] = {(uint64_t)PID << 32 | PID, 0};
  memcpy(&comm[1], "new", 4);
  len = other_rec(&r, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, comm, 2,
                  PID, 3);
  CHECK_EQ_INT(bpi_converter_record(c, r.w, len), BP_OK);
  /* 1: loading the new image, the user-space frame the execve call in
   * the old one; 2: the new image maps its code, a sample there shows
   * the exec returned; 3, 4: the old image's addresses name nothing now;
   * 5: the new code again, elsewhere */
  uint64_t user_ips[] = {leaf + 1, 0x10010, leaf + 1, leaf + 2, 0x10020};
  const char *want[] = {"bp_lbr_leaf", BP_ANON_CODE, BP_UNMAPPED,
                        BP_UNMAPPED, BP_ANON_CODE};
  for(size_t i = 0; i < 5; i++) {
    if(i == 1)
      CHECK_EQ_INT(bpi_converter_record(c, r.w,
                                        anon_mmap2(&r, 0x10000, 0x1000)),
                   BP_OK);
    len = syscall_sample(&r, user_ips[i]);
    CHECK_EQ_INT(bpi_converter_record(c, r.w, len), BP_OK);
  }
  CHECK_EQ_INT(bpi_converter_bad_records(c), 0);
  CHECK_EQ_INT(bpi_converter_finish(c, &err), BP_OK);
  /* every sample a stack of its own: its user-space frame at the root */
  CHECK_EQ_INT(p->ncounts, 5);
  uint32_t funcs[5];
  for(uint32_t i = 0; i < p->ncounts && i < 5; i++) {
    char buf[64];
    uint32_t f = root_frame(p, p->counts[i].stack);
    const char *label = bpi_profile_frame_label(p, f, buf, sizeof(buf));
    if(strcmp(label, want[i]))
      fprintf(stderr, "sample %u: %s, expected %s\n", i, label, want[i]);
    CHECK_EQ_STR(label, want[i]);
    funcs[i] = p->frames[f].func;
  }
  /* other addresses, one function */
  if(p->ncounts == 5)
    CHECK(funcs[2] == funcs[3] && funcs[1] == funcs[4] &&
          funcs[1] != funcs[2]);
  bpi_converter_free(c);
  bpi_symbols_free(sym);
  bpi_profile_free(p);
}

int main(void)
{
  test_user_sample();
  test_kernel_sample();
  test_no_branches_and_hw_index();
  test_converter_callers();
  test_off_cpu_reused_tid();
  test_converter_exec();
  return check_exit();
}

/* Unit test of LBR call stacks (records.c): a sample record with a
 * PERF_SAMPLE_BRANCH_STACK, built by hand as the kernel writes it, parses
 * into its branch entries, and bpi_records_lbr_chain() turns those into
 * the call chain perf makes of them: the kernel part of the callchain,
 * PERF_CONTEXT_USER, the user leaf, then the `from` of every entry. */
#include "bp_setup.h"
#include "records.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

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

int main(void)
{
  test_user_sample();
  test_kernel_sample();
  test_no_branches_and_hw_index();
  return check_exit();
}

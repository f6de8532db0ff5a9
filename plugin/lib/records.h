/* records: bytes of one perf ring record -> struct bp_rec.
 *
 * Input: a record copied whole out of a ring (header included) and the
 * layout the events were opened with (sample_type, sample_id_all, the user
 * register mask).  Output: struct bp_rec whose pointers (callchain,
 * filename, comm, stack copy) borrow the input bytes.  Every length is
 * checked against the record's size: a truncated or inconsistent record is
 * BPE_FORMAT, an unknown type is BP_REC_OTHER, never a crash.
 * Owns nothing; thread-safe. */
#ifndef BP_LIB_RECORDS_H
#define BP_LIB_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "benchprof/benchprof.h"

enum bp_rec_type {
  BP_REC_OTHER = 0,
  BP_REC_SAMPLE,
  BP_REC_MMAP,      /* PERF_RECORD_MMAP and MMAP2 */
  BP_REC_COMM,
  BP_REC_FORK,
  BP_REC_EXIT,
  BP_REC_LOST,
  BP_REC_THROTTLE,
  BP_REC_UNTHROTTLE,
  BP_REC_SWITCH,    /* PERF_RECORD_SWITCH: the thread sid.tid left the CPU
                     * (misc PERF_RECORD_MISC_SWITCH_OUT, with
                     * ..._SWITCH_OUT_PREEMPT when it was still runnable)
                     * or came back to it */
};

struct bp_rec_layout {
  uint64_t sample_type;      /* PERF_SAMPLE_* of the events */
  bool sample_id_all;        /* non-sample records carry the sample id */
  uint64_t sample_regs_user; /* register mask for PERF_SAMPLE_REGS_USER */
  uint64_t branch_sample_type; /* PERF_SAMPLE_BRANCH_* (HW_INDEX: a field) */
};

/* The id fields every record may carry; has_time says whether time is set. */
struct bp_rec_id {
  uint32_t pid, tid;
  uint64_t time;
  uint64_t id;
  uint32_t cpu;
  bool has_time;
};

struct bp_rec_sample {
  uint64_t ip;
  uint64_t period;
  uint64_t nr;              /* callchain entries */
  const uint64_t *ips;      /* callchain, leaf first, may hold markers */
  uint64_t nbranches;       /* PERF_SAMPLE_BRANCH_STACK entries */
  const uint64_t *branches; /* {from, to, flags} each, newest first */
  uint64_t regs_abi;        /* 0 when no user registers were sampled */
  uint32_t nregs;
  const uint64_t *regs;     /* in mask bit order */
  uint64_t stack_size;      /* bytes of user stack copied */
  const unsigned char *stack;
  uint64_t stack_dyn_size;  /* bytes of it that are valid */
  bool user;                /* cpumode: the interrupted code was user space */
};

struct bp_rec_mmap {
  uint32_t pid, tid;
  uint64_t start, len, pgoff;
  const char *filename;      /* NUL-terminated inside the record */
  unsigned char build_id[20];
  uint8_t build_id_size;     /* 0 when the kernel sent none */
  uint32_t prot;             /* MMAP2 only; PROT_EXEC assumed for MMAP */
  uint32_t maj, min;         /* the file's device and inode: MMAP2 */
  uint64_t ino;              /* without a build id (has_ino) */
  bool has_ino;
  bool is_mmap2;
};

struct bp_rec_comm {
  uint32_t pid, tid;
  const char *comm;
  bool exec;   /* the name changed because of exec */
};

struct bp_rec_task {  /* FORK and EXIT */
  uint32_t pid, ppid, tid, ptid;
  uint64_t time;
};

struct bp_rec_lost {
  uint64_t id, lost;
};

struct bp_rec {
  enum bp_rec_type type;
  uint32_t raw_type;  /* the PERF_RECORD_* number */
  uint16_t misc;
  struct bp_rec_id sid;
  union {
    struct bp_rec_sample sample;
    struct bp_rec_mmap mmap;
    struct bp_rec_comm comm;
    struct bp_rec_task task;
    struct bp_rec_lost lost;
  } u;
};

/* Parse one record of len bytes (len is the header's size). */
bp_code bpi_records_parse(const struct bp_rec_layout *lay, const void *data,
                          size_t len, struct bp_rec *out);

/* The call chain of a sample taken with LBR call stacks
 * (PERF_SAMPLE_BRANCH_CALL_STACK), in the callchain's own format, as perf
 * builds it: the kernel part of the sample's callchain as it is, then
 * PERF_CONTEXT_USER, the user-space leaf (the sample's ip, or the first
 * user entry of the callchain when the sample stopped in the kernel), and
 * the `from` address of every branch entry, innermost call first.  Those
 * are the call instructions themselves, not return addresses: a consumer
 * must not take one off them.  Writes at most max entries into out and returns how
 * many; 0 when the sample has no branch entries (use its callchain). */
size_t bpi_records_lbr_chain(const struct bp_rec_sample *s, uint64_t *out,
                             size_t max);

/* The record's time without a full parse (0 when it has none), used to
 * order records of several rings. */
uint64_t bpi_records_time(const struct bp_rec_layout *lay, const void *data,
                          size_t len);

#endif

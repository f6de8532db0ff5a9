/* control: benchmark markers from the harness.
 *
 * Input: lines a harness writes to a FIFO whose path benchprof puts in the
 * command's environment as BENCHPROF_CONTROL (see
 * plugin/include/benchprof/hooks.h for the protocol):
 *   begin <ns|-> <name, percent-encoded>\n
 *   end <ns|->\n
 * <ns> is CLOCK_MONOTONIC in nanoseconds; "-" means "when benchprof reads
 * the line".  "begin!" and "end!" ask for an ack: once the counters are
 * read for that line, one byte is written to the ack FIFO
 * (<path>.ack), which the harness waits for, so counters are read while
 * it is stopped at begin and end, not whenever benchprof gets to it.  Output: segments {name, begin_ns, end_ns} with the counters'
 * deltas between the two reads.
 *
 * Rules: a begin while a segment is open ends that one at the new begin;
 * an end with no open segment is ignored and counted; a segment still open
 * when the command exits ends then.  A line that does not parse is counted
 * and dropped, never fatal.  Counters are read when benchprof reads the
 * line: exact for lines that asked for an ack, otherwise as precise as
 * that delay; times given in the line are exact.
 *
 * Owns the FIFO, its directory and the segments.  Not thread-safe. */
#ifndef BP_LIB_CONTROL_H
#define BP_LIB_CONTROL_H

#include <stddef.h>
#include <stdint.h>

#include "benchprof/benchprof.h"
#include "counters.h"

#define BP_CONTROL_ENV "BENCHPROF_CONTROL"
/* the ack FIFO is the control FIFO's path with this added */
#define BP_CONTROL_ACK_SUFFIX ".ack"
/* the longest line read; the hooks keep theirs under PIPE_BUF */
#define BP_CONTROL_LINE_MAX 4096
/* bytes of a directory name made from a benchmark name, before "-N" */
#define BP_CONTROL_DIRNAME_MAX 64

struct bp_segment {
  const char *name;            /* decoded: any bytes but NUL; one copy per
                                  distinct name, owned by the control */
  uint32_t name_id;            /* equal names, equal ids, from 0 */
  uint64_t begin_ns, end_ns;   /* CLOCK_MONOTONIC, [begin, end) */
  /* deltas, in the counters' order: on the first segment of a name,
   * summed over every run of that name as each ends (NULL on the
   * others), so memory grows by a time range per run, not by a set of
   * counters */
  struct bp_counter *counters;
  size_t ncounters;
};

struct bp_control_stats {
  uint64_t bad_lines;     /* did not parse */
  uint64_t unmatched_end; /* end with no open segment */
  uint64_t implicit_end;  /* ended by a begin or by the command's exit */
};

struct bp_control;

/* Make the private directory (in tmpdir, the user's TMPDIR, when it is
 * set; else on a memory file system this user may write, runtime_dir
 * (XDG_RUNTIME_DIR; NULL: none) or /dev/shm, else /tmp) and FIFO and
 * open it (read end nonblocking, and a write end kept open so writers
 * coming and going give no EOF). */
bp_code bpi_control_new(struct bp_control **out, const char *tmpdir,
                        const char *runtime_dir, struct bp_err *err);
/* Removes the FIFO and its directory. */
void bpi_control_free(struct bp_control *c);

/* "BENCHPROF_CONTROL=<path>", for the command's environment. */
const char *bpi_control_env(const struct bp_control *c);
/* The fd to poll for input. */
int bpi_control_fd(const struct bp_control *c);
/* Counters to read at each begin and end (may be NULL; not owned). */
void bpi_control_set_counters(struct bp_control *c, struct bp_counters *cs);

/* Read and apply every complete line waiting in the FIFO; now_ns is the
 * time for "-".  Only BPE_NOMEM is an error; after one, lines are still
 * read (and acked) but dropped, and every call returns it. */
bp_code bpi_control_read(struct bp_control *c, uint64_t now_ns);
/* After the command exited: read what is left, end the open segment at
 * end_ns. */
bp_code bpi_control_finish(struct bp_control *c, uint64_t end_ns);

const struct bp_segment *bpi_control_segments(const struct bp_control *c,
                                              size_t *n);
const struct bp_control_stats *bpi_control_stats(const struct bp_control *c);

/* Parse one line (without its newline).  BP_OK, or BPE_FORMAT.  *name is
 * the decoded name of a begin (caller frees), NULL for an end; *ns is 0
 * for "-". */
bp_code bpi_control_parse(const char *line, size_t len, char **name,
                          uint64_t *ns);

/* Directory names for n benchmark names: only [A-Za-z0-9._-] (other bytes
 * become '_'), no leading '.' or '-', at most BP_CONTROL_DIRNAME_MAX bytes
 * plus a "-2", "-3"... suffix that makes each differ from the ones before
 * and from the NULL-terminated reserved list (files benchprof writes next
 * to them).  *out is an array of n strings; free with
 * bpi_control_dirnames_free. */
bp_code bpi_control_dirnames(const char *const *names, size_t n,
                             const char *const *reserved, char ***out);
void bpi_control_dirnames_free(char **names, size_t n);

#endif

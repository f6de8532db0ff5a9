/* converter: perf records -> profile (samply's Converter).
 *
 * Input: records in time order (the sampler's callback).  It keeps the
 * processes' address spaces (procs), turns every callchain address into a
 * frame keyed by (library, address inside the library) and every callchain
 * into an interned stack, and counts samples into the profile as they
 * arrive, so memory grows with distinct stacks, not with the run.
 * bpi_converter_finish() symbolizes each distinct frame once and names the
 * threads.  Borrows the profile and the symbolizer; owns procs.
 *
 * The records normally arrive after the command exited (the sampler spills
 * the rings to files while it runs), so the work here costs the benchmark
 * nothing.
 *
 * DWARF unwinding (records carrying PERF_SAMPLE_STACK_USER): each sample is
 * unwound as it arrives, from the registers and stack copy where they lie
 * in the record (unwind.c, one Dwfl per process, made anew when the
 * process's mappings changed since its last sample), and its pcs become
 * the same (library, address) frames.  With BP_CALL_GRAPH_AUTO a sample
 * keeps the DWARF chain when the unwinding reached the outermost frame,
 * otherwise the longer of the two chains (DWARF on a tie).
 * Not thread-safe. */
#ifndef BP_LIB_CONVERTER_H
#define BP_LIB_CONVERTER_H

#include <stddef.h>
#include <sys/types.h>

#include "benchprof/benchprof.h"
#include "profile.h"
#include "records.h"
#include "symbols.h"
#include "unwind.h"

struct bp_converter;

bp_code bpi_converter_new(struct bp_converter **out, struct bp_profile *p,
                          struct bp_symbols *sym,
                          const struct bp_rec_layout *layout,
                          enum bp_call_graph mode);
void bpi_converter_free(struct bp_converter *c);

/* Take one record (matches bp_record_fn: ctx is the converter). */
bp_code bpi_converter_record(void *ctx, const void *rec, size_t len);

/* Off-CPU intervals from context-switch records (--off-cpu): each
 * charged to the stack of the sample whose id is one of switch_ids (the
 * context-switches events, sampled at switch-out; borrowed), or with n 0
 * to the thread's last on-CPU sample's stack.  Those samples are not
 * on-CPU samples. */
void bpi_converter_off_cpu(struct bp_converter *c, const uint64_t *switch_ids,
                           size_t n);

/* pid, a process about to exec the command: its mappings, read now from
 * /proc, are those its exec replaces.  The events are enabled in that
 * exec, after the kernel swapped the address spaces: without them, the
 * samples taken while the new program is loaded would have their
 * user-space frame (the execve call) in no mapping known. */
void bpi_converter_process_before_exec(struct bp_converter *c, pid_t pid);

/* Records that could not be parsed (counted, skipped). */
uint64_t bpi_converter_bad_records(const struct bp_converter *c);

/* Symbolize every frame and name every thread. */
bp_code bpi_converter_finish(struct bp_converter *c, struct bp_err *err);

#endif

/* preload: the symbol tables of the modules the recorded command maps,
 * read while the rings are set up and the command runs, on a CPU left
 * idle, instead of after its end.
 *
 * Input: the modules predicted before the command starts
 * (bpi_symbols_predict: the program, its loader, the libraries of ours it
 * needs, the vDSO), then the command's pid after its exec
 * (bpi_preload_follow).  A thread of its own, at SCHED_IDLE, reads the
 * predicted modules' function tables (bpi_symbols_read_module), most of
 * it while the rings are mapped; then /proc/PID/maps, and each executable
 * file mapping's module not read yet, again until three passes 1, 2 and
 * 4 ms apart find nothing new (the dynamic loader maps the libraries
 * after the exec), or the process is gone.  SCHED_IDLE runs it only on a
 * CPU that has nothing else to run, so the benchmark never waits for it;
 * where the kernel refuses SCHED_IDLE it reads nothing.
 *
 * Output: bpi_preload_stop() hands the modules read so far to the
 * symbolizer (bpi_symbols_adopt) and returns at once.  It never waits for
 * the thread, which SCHED_IDLE may starve on a busy machine: a module
 * still being read is dropped by the thread when it is done, and the
 * symbolizer reads that one itself when a sample needs it.
 *
 * Owns the thread and the modules until they are handed over; touches no
 * symbolizer before bpi_preload_stop(). */
#ifndef BP_LIB_PRELOAD_H
#define BP_LIB_PRELOAD_H

#include <stdbool.h>
#include <sys/types.h>

#include "benchprof/benchprof.h"
#include "symbols.h"

struct bp_preload;

/* Start reading the predicted modules (bpi_symbols_predict's array,
 * owned by p from here on; NULL: none).  BPE_NOMEM or BPE_SYS (no
 * thread): the recording goes on without. */
bp_code bpi_preload_start(struct bp_preload **out, char **predicted);

/* The command exec'd as pid: its maps are read from now on. */
void bpi_preload_follow(struct bp_preload *p, pid_t pid);

/* Whether the thread has ended: it read all it was going to (or could
 * not run at SCHED_IDLE).  For tests, which wait for it. */
bool bpi_preload_done(struct bp_preload *p);

/* Stop: the modules read so far go to s (the number that s took is
 * returned), and p is gone. */
unsigned bpi_preload_stop(struct bp_preload *p, struct bp_symbols *s);

#endif

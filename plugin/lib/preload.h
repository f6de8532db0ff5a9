/* preload: the symbol tables of the modules the recorded command maps,
 * read while it runs, on a CPU it leaves idle, instead of after its end
 * (symbols.preload, off by default: the CPU it takes while the command
 * runs is what issue 8's target forbids).
 *
 * Input: the command (argv[0] and $PATH) and its pid once it exec'd.  A
 * thread of its own, at SCHED_IDLE (the kernel gives it a CPU only when
 * no other thread wants one, but for a sliver of a busy one), reads the
 * function tables (bpi_symbols_read_module) of the modules told before
 * it runs (bpi_symbols_predict: the program, its loader, the libraries of
 * ours it needs, the vDSO), then of each executable file mapping of
 * /proc/PID/maps not read yet, again until three passes 1, 2 and 4 ms
 * apart find nothing new (the loader maps libraries after the exec), or
 * the process is gone.  Where the kernel refuses SCHED_IDLE it reads
 * nothing.  It then waits for bpi_preload_stop(), so that its CPU time
 * stays in /proc/PID/task for tools that read it there.
 *
 * Output: bpi_preload_stop() takes the modules read so far to the
 * symbolizer (bpi_symbols_adopt).  It shares no lock with the thread
 * (one atomic count, an eventfd) and never waits for it: a module still
 * being read is dropped by the thread when it is done, and the symbolizer
 * reads that one itself when a sample needs it.  One wait is left: a
 * fork() (the spill's helper, the next --each invocation) takes the
 * allocator's locks, and a thread stopped inside malloc() holds one of
 * its own until it runs again.
 *
 * Owns the thread and the modules until they are handed over; touches no
 * symbolizer. */
#ifndef BP_LIB_PRELOAD_H
#define BP_LIB_PRELOAD_H

#include <stdbool.h>
#include <sys/types.h>

#include "benchprof/benchprof.h"
#include "symbols.h"

struct bp_preload;

/* Start reading the modules of the command argv0 (found in search_path,
 * $PATH; NULL argv0: none predicted).  Call it once the command's rings
 * are mapped: alongside that, the thread took four times the CPU.
 * BPE_NOMEM or BPE_SYS (no thread): the recording goes on without. */
bp_code bpi_preload_start(struct bp_preload **out, const char *argv0,
                          const char *search_path);

/* The command exec'd as pid: its maps are read from now on. */
void bpi_preload_follow(struct bp_preload *p, pid_t pid);

/* Whether the thread read all it was going to (or could not run at
 * SCHED_IDLE).  For tests, which wait for it. */
bool bpi_preload_done(struct bp_preload *p);

/* Stop: the modules read so far go to s (the number that s took is
 * returned), and p is gone. */
unsigned bpi_preload_stop(struct bp_preload *p, struct bp_symbols *s);

#endif

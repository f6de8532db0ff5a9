/* synthetic_profile: a small profile with known contents for the exporter
 * tests and the validator fixture.
 *
 * Two processes, three threads, 800 samples of 1 ms (cpu-clock at 1000 Hz,
 * a fallback from "cycles").  Every thread splits 75/25 between the leaf
 * functions hot_loop and cold_path, and so does the whole profile (600/200).
 * It holds one unresolved frame (0x2a40 in libc.so.6), one kernel frame
 * (entry_SYSCALL_64), one function with two frames (hot_loop), and hostile
 * names: ';', '"', "<script>", a newline and invalid UTF-8.
 *
 *   process "bench" (pid 1000)
 *     tid 1000 "bench"       main;work*;hot_loop 300
 *                            main;work*;cold_path 100
 *     tid 1001 SYNTH_WORKER  main;work*;hot_loop 50
 *                            start_thread;0x2a40;hot_loop 100
 *                            start_thread;0x2a40;cold_path 50
 *   process "hel;per" (pid 2000)
 *     tid 2000 "hel;per"     main;entry_SYSCALL_64;hot_loop 150
 *                            main;entry_SYSCALL_64;cold_path 50
 *   (work* is SYNTH_WORK, the hostile name)
 */
#ifndef BP_TESTS_SYNTHETIC_PROFILE_H
#define BP_TESTS_SYNTHETIC_PROFILE_H

#include "benchprof/benchprof.h"
#include "profile.h"

#define SYNTH_WORK "work;\"quoted\"<script>alert(1)</script>\nline2\xff"
/* ... as the exporters clean it (folded also turns ';' into ':') */
#define SYNTH_WORK_CLEAN \
  "work;\"quoted\"<script>alert(1)</script> line2\xef\xbf\xbd"
#define SYNTH_WORK_FOLDED \
  "work:\"quoted\"<script>alert(1)</script> line2\xef\xbf\xbd"
#define SYNTH_WORKER "pool;worker\"<1>"
#define SYNTH_HOT "hot_loop"
#define SYNTH_COLD "cold_path"
#define SYNTH_HOT_SAMPLES 600
#define SYNTH_COLD_SAMPLES 200
#define SYNTH_SAMPLES 800
#define SYNTH_PERIOD_NS 1000000
#define SYNTH_START_NS 5000000000ull

/* A new profile with the contents above; free with bpi_profile_free(). */
bp_code synth_profile_new(struct bp_profile **out);

#endif

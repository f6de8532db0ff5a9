/* events: libpfm4 event names -> struct perf_event_attr, and the decision to
 * fall back to the software clock.  The only libpfm4 user; perf's plain
 * generic names ("cycles", "task-clock") are encoded without loading it.
 *
 * Input: an event string as the user typed it ("cycles", "cycles:u",
 * "perf::cpu-clock", "r00c0", "INST_RETIRED:ANY_P").  Output: struct
 * bp_event with the encoded attr (type, config, config1/2, exclude_* bits
 * from modifiers).  Sampling settings (freq, period, sample_type) are the
 * sampler's business and are left zero here.  Not thread-safe
 * (libpfm4 initialisation is global). */
#ifndef BP_LIB_EVENTS_H
#define BP_LIB_EVENTS_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>

#include "benchprof/benchprof.h"

struct bp_event {
  char *name;    /* as requested */
  char *fqname;  /* libpfm4's fully qualified name, e.g. "perf::CYCLES:u" */
  struct perf_event_attr attr;
  bool is_time;  /* a software clock: periods are nanoseconds */
  bool precise_max; /* perf's :P: the highest precision the PMU accepts */
};

/* perf's modifiers -> libpfm4's.  name is an event as a perf user writes
 * it ("cycles:upp", "INST_RETIRED:ANY_P:P"); *out (malloc'd) is the same
 * event in libpfm4's syntax ("cycles:u:precise=2"): u, k and h stay, p, pp
 * and ppp become precise=1..3, P precise=3 (*precise_max set: lower it
 * until the PMU accepts, as perf does), G and H the guest/host modifiers
 * mg and mh, D pinned.  Tokens that are not perf modifiers are left as
 * they are.  A perf modifier that has no libpfm4 counterpart (S, W, I, b,
 * e, more than three p) is BPE_INVAL, and err->msg says what to write. */
bp_code bpi_event_translate(const char *name, char **out, bool *precise_max,
                            struct bp_err *err);

/* Nothing to prepare: libpfm4 is loaded with dlopen() and initialised by
 * the first name that needs it, and a failure to load it is a BPE_LIBPFM
 * error of that call naming the library. */

/* Encode name.  With kernel false, the event counts user space only
 * (exclude_kernel = 1, exclude_hv = 1) unless the name carries its own
 * privilege-level modifiers.  An unknown name returns BPE_EVENT_UNKNOWN and
 * err->msg names up to three close matches ("did you mean ...").
 * On success the caller owns ev and releases it with bpi_event_cleanup(). */
bp_code bpi_event_parse(const char *name, bool kernel, struct bp_event *ev,
                        struct bp_err *err);
void bpi_event_cleanup(struct bp_event *ev);

/* For tests: bpi_event_parse() always through libpfm4, never the built-in
 * table of perf's generic names (events.c), whose results must be the same. */
bp_code bpi_event_parse_pfm(const char *name, bool kernel,
                            struct bp_event *ev, struct bp_err *err);

/* For tests: the i-th name of that built-in table, NULL past its end (or
 * at once where the table is empty). */
const char *bpi_event_generic_name(size_t i);

/* The software clock (perf::cpu-clock) with the same privilege bits as
 * like, for the no-PMU fallback. */
bp_code bpi_event_software_clock(const struct bp_event *like,
                                 struct bp_event *ev, struct bp_err *err);

/* True when a perf_event_open errno for a hardware event means "this machine
 * has no usable PMU for it" (ENOENT, ENODEV, ENXIO, EOPNOTSUPP). */
bool bpi_event_errno_no_pmu(int err);

/* True when an open with precise_ip > 0 that failed with this errno is
 * worth trying again one precision lower (perf's rule: EOPNOTSUPP and
 * EINVAL from the PMU, ENOENT from some drivers). */
bool bpi_event_errno_precise(int err);

/* What a perf_event_open errno that is not a missing PMU means for the
 * user, and what to do ("the PMU's counters are in use by another
 * program"); NULL for one without advice. */
const char *bpi_event_errno_advice(int err);

/* Trial-open attr counting (not sampling) on the calling process, user only,
 * and close it again.  Returns 0 when the kernel accepts it, else errno. */
int bpi_event_probe(const struct perf_event_attr *attr);

/* Up to max event names close to name (edit distance), best first.
 * Strings are malloc'd; the caller frees each.  Returns how many. */
size_t bpi_events_suggest(const char *name, char **out, size_t max);
/* The same as the list "a, b, c" in out (cap bytes, cut there): the
 * "did you mean" of an unknown event (-e) and of a pattern `benchprof
 * events` finds nothing for.  Returns how many names it has. */
size_t bpi_events_did_you_mean(const char *name, char *out, size_t cap);

struct bp_event_info {
  const char *name;   /* "pmu::event" */
  const char *desc;
  bool is_generic;    /* the portable perf PMU */
  int open_errno;     /* result of bpi_event_probe() when probing, else -1 */
};

/* Call cb for every event of every present PMU whose name contains pattern
 * (case-insensitive; NULL or "" matches all).  With probe, each event is
 * trial-opened.  cb returns non-zero to stop. */
bp_code bpi_events_list(const char *pattern, bool probe,
                        int (*cb)(const struct bp_event_info *, void *),
                        void *ctx, struct bp_err *err);

#endif

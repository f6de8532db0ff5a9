/* benchprof: profile benchmarks on bare-metal runners.
 *
 * Public API, part 1: version, result codes and the error record that
 * long-lived objects carry.  Every fallible function in the library returns a
 * bp_code; BP_OK is 0 and codes are never renumbered.
 */
#ifndef BENCHPROF_BENCHPROF_H
#define BENCHPROF_BENCHPROF_H

#ifdef __cplusplus
extern "C" {
#endif

#define BENCHPROF_VERSION "0.1.0"

typedef enum {
  BP_OK = 0,           /* 0: success */
  BPE_NOMEM = 1,       /* 1: out of memory */
  BPE_INVAL = 2,       /* 2: invalid argument or option value */
  BPE_EVENT_UNKNOWN = 3, /* 3: libpfm4 does not know the event name */
  BPE_EVENT_OPEN = 4,  /* 4: perf_event_open refused the event */
  BPE_NO_PMU = 5,      /* 5: no usable hardware PMU for this event */
  BPE_PERM = 6,        /* 6: permission denied (perf_event_paranoid) */
  BPE_EXEC = 7,        /* 7: the command could not be started */
  BPE_IO = 8,          /* 8: reading or writing a file failed */
  BPE_FORMAT = 9,      /* 9: malformed input (records, files) */
  BPE_SYS = 10,        /* 10: another system call failed */
  BPE_LIBPFM = 11,     /* 11: libpfm4 failed to initialise */
  BPE_NET = 12,        /* 12: network failure or timeout (worth retrying) */
  BPE_HTTP = 13,       /* 13: the server refused the request (4xx) */
  BPE_CONFIG = 14,     /* 14: invalid configuration file or value */
  BPE_NOT_FOUND = 15,  /* 15: no such object in the store */
  BPE_LAST             /* never used; keep last */
} bp_code;

/* A short human message; never NULL. */
const char *bp_strerror(bp_code code);

/* The error record of a long-lived object.  The first error wins: later
 * failures while cleaning up do not overwrite the message that explains the
 * original problem. */
struct bp_err {
  bp_code code;
  int sys_errno;  /* errno of the failing call, 0 when none */
  char msg[512];  /* what and where, e.g. "event 'cycles' on CPU 1" */
};

#ifdef __cplusplus
}
#endif
#endif

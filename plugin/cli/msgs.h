/* msgs: the only code of benchprof that writes its own messages to stderr.
 * Every line starts with "benchprof: " so it stands apart from the
 * benchmark's output, which passes through untouched. */
#ifndef BP_CLI_MSGS_H
#define BP_CLI_MSGS_H

#include "benchprof/benchprof.h"

void bp_msg_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void bp_msg_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void bp_msg_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print err->msg (or bp_strerror(code) when empty) as an error. */
void bp_msg_err(const struct bp_err *err, bp_code code);
/* Silence notes (-q); warnings and errors still print. */
void bp_msg_set_quiet(int quiet);

#endif

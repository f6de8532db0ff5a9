/* msgs: every message benchprof writes to stderr about itself (notes,
 * warnings, errors).  Every line starts with "benchprof: " so it stands
 * apart from the benchmark's output, which passes through untouched.
 * An error is a failure that decides the exit status; one benchprof gets
 * past (the exit status stays the benchmark's) is a warning
 * (docs/reliability.md, "Errors and warnings").
 * Results a command was asked for are not messages: help goes where
 * the user asked for it, and `benchprof stat` prints its counter table
 * on stderr itself (cmd_stat.c), keeping stdout the command's. */
#ifndef BP_CLI_MSGS_H
#define BP_CLI_MSGS_H

#include "benchprof/benchprof.h"

#include <stdarg.h>
#include <stdbool.h>

void bp_msg_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void bp_msg_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void bp_msg_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A failure as a warning (one the job gets past: its status is kept) or
 * as an error; for the commands' own "say" helpers, which decide which. */
void bp_msg_vsay(bool as_warning, const char *fmt, va_list ap)
  __attribute__((format(printf, 2, 0)));
/* Print err->msg (or bp_strerror(code) when empty) as an error. */
void bp_msg_err(const struct bp_err *err, bp_code code);
/* The same as a warning (a failure benchprof gets past). */
void bp_msg_warn_err(const struct bp_err *err, bp_code code);
/* Silence notes (-q); warnings and errors still print. */
void bp_msg_set_quiet(int quiet);

#endif

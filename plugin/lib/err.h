/* err: result codes and the first-error-wins message record.
 * Input: a code, an errno and a printf-style message.  Output: the filled
 * struct bp_err.  Owns nothing.  Thread-safe per struct bp_err. */
#ifndef BP_LIB_ERR_H
#define BP_LIB_ERR_H

#include "benchprof/benchprof.h"

/* Record an error unless one is already recorded; returns code so a caller
 * can write `return bpi_err_set(...)`. */
bp_code bpi_err_set(struct bp_err *err, bp_code code, int sys_errno,
                    const char *fmt, ...)
  __attribute__((format(printf, 4, 5)));

/* Record code with from's errno and message as they are (the message
 * already ends with the errno's text, which bpi_err_set with
 * from->sys_errno would add again), or bp_strerror(code) when from has
 * no message, unless one is already recorded; returns code. */
bp_code bpi_err_copy(struct bp_err *err, bp_code code,
                     const struct bp_err *from);

/* Forget the recorded error. */
void bpi_err_clear(struct bp_err *err);

#endif

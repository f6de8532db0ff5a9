#include "bp_setup.h"
#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *bp_strerror(bp_code code)
{
  switch(code) {
  case BP_OK: return "no error";
  case BPE_NOMEM: return "out of memory";
  case BPE_INVAL: return "invalid argument";
  case BPE_EVENT_UNKNOWN: return "unknown event";
  case BPE_EVENT_OPEN: return "cannot open perf event";
  case BPE_NO_PMU: return "no usable hardware PMU";
  case BPE_PERM: return "permission denied";
  case BPE_EXEC: return "cannot start command";
  case BPE_IO: return "input/output error";
  case BPE_FORMAT: return "malformed input";
  case BPE_SYS: return "system call failed";
  case BPE_LIBPFM: return "libpfm4 initialisation failed";
  case BPE_NET: return "network failure";
  case BPE_HTTP: return "request refused by the server";
  case BPE_CONFIG: return "invalid configuration";
  case BPE_NOT_FOUND: return "not found";
  case BPE_LAST: break;
  }
  return "unknown error code";
}

bp_code bpi_err_set(struct bp_err *err, bp_code code, int sys_errno,
                    const char *fmt, ...)
{
  if(!err || err->code != BP_OK)
    return code;
  err->code = code;
  err->sys_errno = sys_errno;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
  va_end(ap);
  if(n >= 0 && sys_errno && (size_t)n < sizeof(err->msg))
    snprintf(err->msg + n, sizeof(err->msg) - (size_t)n, ": %s",
             strerror(sys_errno));
  return code;
}

bp_code bpi_err_copy(struct bp_err *err, bp_code code,
                     const struct bp_err *from)
{
  if(!from->msg[0])
    return bpi_err_set(err, code, 0, "%s", bp_strerror(code));
  if(err && err != from && err->code == BP_OK) {
    *err = *from;
    err->code = code;
  }
  return code;
}

void bpi_err_clear(struct bp_err *err)
{
  err->code = BP_OK;
  err->sys_errno = 0;
  err->msg[0] = '\0';
}

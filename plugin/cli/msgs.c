#include "bp_setup.h"
#include "msgs.h"

#include <stdarg.h>
#include <stdio.h>

static int quiet;

void bp_msg_set_quiet(int q)
{
  quiet = q;
}

static void vmsg(const char *kind, const char *fmt, va_list ap)
{
  /* one fprintf per line keeps lines whole when the target writes too */
  char line[2048];
  vsnprintf(line, sizeof(line), fmt, ap);
  fprintf(stderr, "benchprof: %s%s\n", kind, line);
}

void bp_msg_error(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vmsg("error: ", fmt, ap);
  va_end(ap);
}

void bp_msg_warn(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vmsg("warning: ", fmt, ap);
  va_end(ap);
}

void bp_msg_note(const char *fmt, ...)
{
  if(quiet)
    return;
  va_list ap;
  va_start(ap, fmt);
  vmsg("", fmt, ap);
  va_end(ap);
}

void bp_msg_err(const struct bp_err *err, bp_code code)
{
  if(err && err->msg[0])
    bp_msg_error("%s", err->msg);
  else
    bp_msg_error("%s", bp_strerror(code));
}

void bp_msg_warn_err(const struct bp_err *err, bp_code code)
{
  if(err && err->msg[0])
    bp_msg_warn("%s", err->msg);
  else
    bp_msg_warn("%s", bp_strerror(code));
}

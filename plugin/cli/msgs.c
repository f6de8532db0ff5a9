#include "bp_setup.h"
#include "cli.h"
#include "msgs.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

void bp_msg_vsay(bool as_warning, const char *fmt, va_list ap)
{
  vmsg(as_warning ? "warning: " : "error: ", fmt, ap);
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

/* ---------------------------------------------------- command lines */

int bp_cli_usage_hint(const char *cmd)
{
  /* not a note: -q never hides where the help is */
  fprintf(stderr, "benchprof: see 'benchprof %s --help'\n", cmd);
  return BP_EXIT_USAGE;
}

/* The long option named by the n bytes at name: the one spelt so, else
 * the only one it abbreviates (as getopt_long takes them); *matches: how
 * many it abbreviates. */
static const struct option *long_option(const struct option *longopts,
                                        const char *name, size_t n,
                                        unsigned *matches)
{
  const struct option *pick = NULL;
  *matches = 0;
  for(const struct option *o = longopts; o && o->name; o++) {
    if(strncmp(o->name, name, n))
      continue;
    if(strlen(o->name) == n) {
      *matches = 1;
      return o;
    }
    pick = o;
    (*matches)++;
  }
  return *matches == 1 ? pick : NULL;
}

/* "--st is ambiguous: --store, --strict": the options name (n bytes)
 * abbreviates. */
static void say_ambiguous(const char *cmd, const char *name, size_t n,
                          const struct option *longopts)
{
  char list[512];
  size_t len = 0;
  list[0] = '\0';
  for(const struct option *o = longopts; o->name; o++)
    if(!strncmp(o->name, name, n) && len < sizeof(list)) {
      int k = snprintf(list + len, sizeof(list) - len, "%s--%s",
                       len ? ", " : "", o->name);
      len += k > 0 ? (size_t)k : 0;
    }
  bp_msg_error("%s: '--%.*s' is ambiguous: %s", cmd, (int)(n > 64 ? 64 : n),
               name, list);
}

/* A refused long option, arg its argv element ("--name" or
 * "--name=value", the value never shown: it may be a secret). */
static void say_bad_long(const char *cmd, const char *arg,
                         const struct option *longopts)
{
  const char *name = arg + 2;
  size_t n = strcspn(name, "=");
  unsigned matches;
  const struct option *o = long_option(longopts, name, n, &matches);
  if(o && o->has_arg == required_argument && !name[n])
    bp_msg_error("%s: --%s needs a value", cmd, o->name);
  else if(o && o->has_arg == no_argument && name[n])
    bp_msg_error("%s: --%s takes no value", cmd, o->name);
  else if(matches > 1)
    say_ambiguous(cmd, name, n, longopts);
  else
    bp_msg_error("%s: unknown option '--%.*s'", cmd, (int)(n > 64 ? 64 : n),
                 name);
}

/* The group of short options ("-q-", "-vZ") getopt refused optopt in:
 * the argument it just left when optopt was the group's last character,
 * else the one it is still in; NULL when optopt stood alone ("-Z"), where
 * "-Z" says it all ("-q-" would read "unknown option '--'"). */
static const char *short_cluster(char *const *argv)
{
  for(int i = optind > 0 ? optind - 1 : 0; i <= optind && argv[i]; i++) {
    const char *a = argv[i];
    if(a[0] == '-' && a[1] && a[1] != '-' && a[2] && strchr(a + 1, optopt))
      return a;
  }
  return NULL;
}

int bp_cli_bad_option(const char *cmd, char *const *argv,
                      const char *shortopts, const struct option *longopts)
{
  /* getopt_long has moved past a long option it refuses; a short one may
   * sit inside a cluster ("-qZ"), which optopt names */
  const char *arg = optind > 0 ? argv[optind - 1] : NULL;
  bool is_long = arg && !strncmp(arg, "--", 2) && arg[2];
  if(is_long && optopt) {
    /* optopt is then the long option's value; a short one refused after
     * a long one names another character */
    unsigned matches;
    const struct option *o = long_option(longopts, arg + 2,
                                         strcspn(arg + 2, "="), &matches);
    is_long = o && o->val == optopt;
  }
  if(is_long)
    say_bad_long(cmd, arg, longopts);
  else {
    const char *cluster;
    const char *s = optopt ? strchr(shortopts, optopt) : NULL;
    if(s && optopt != ':' && optopt != '+' && s[1] == ':')
      bp_msg_error("%s: -%c needs a value", cmd, optopt);
    else if(optopt > ' ' && optopt < 127 && (cluster = short_cluster(argv)))
      bp_msg_error("%s: unknown option character '%c' in '%s'", cmd, optopt,
                   cluster);
    else if(optopt > ' ' && optopt < 127)
      bp_msg_error("%s: unknown option '-%c'", cmd, optopt);
    else
      bp_msg_error("%s: unknown option", cmd);
  }
  return bp_cli_usage_hint(cmd);
}

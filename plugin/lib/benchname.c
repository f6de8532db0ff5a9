/* benchname: what of a benchmark's name is the build's (see benchname.h). */
#include "bp_setup.h"
#include "benchname.h"

#include <string.h>

#define CARGO_HASH_DIGITS 16
/* a process name as the kernel keeps it (comm): 15 characters */
#define BP_COMM_MAX 15
/* git's shortest abbreviated hash; fewer digits are too often a number */
#define BUILD_HASH_MIN_DIGITS 7

static bool is_lower_hex(char c)
{
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static bool is_hex(char c)
{
  return is_lower_hex(c) || (c >= 'A' && c <= 'F');
}

/* How many hex digits (either case) end the first len bytes of s;
 * *decimal: whether they are all decimal digits (true for none). */
static size_t hex_tail(const char *s, size_t len, bool *decimal)
{
  size_t i = len;
  *decimal = true;
  while(i > 0 && is_hex(s[i - 1])) {
    *decimal = *decimal && s[i - 1] >= '0' && s[i - 1] <= '9';
    i--;
  }
  return len - i;
}

size_t bpi_benchname_cargo_stem(const char *name)
{
  size_t len = strlen(name);
  if(len < CARGO_HASH_DIGITS + 2)
    return len;   /* the '-' and something before it */
  size_t dash = len - CARGO_HASH_DIGITS - 1;
  if(name[dash] != '-')
    return len;
  for(size_t i = dash + 1; i < len; i++)
    if(!is_lower_hex(name[i]))
      return len;
  return dash;
}

size_t bpi_benchname_hash_stem(const char *name, bool *digits_only)
{
  size_t len = strlen(name);
  bool decimal;
  size_t i = len - hex_tail(name, len, &decimal);
  if(digits_only)
    *digits_only = false;
  /* i: the first hex digit; the separator before it, and a stem */
  if(len - i < BUILD_HASH_MIN_DIGITS || i < 2 || !strchr("-_.", name[i - 1]))
    return len;
  if(digits_only)
    *digits_only = decimal;
  return i - 1;
}

bool bpi_benchname_same_but_hash(const char *a, const char *b)
{
  bool da, db;
  size_t la = bpi_benchname_hash_stem(a, &da);
  size_t lb = bpi_benchname_hash_stem(b, &db);
  /* both cut (neither is its own stem), the stems and separators alike */
  return la < strlen(a) && lb < strlen(b) && la == lb &&
         !memcmp(a, b, la + 1) && !(da && db);
}

/* Whether hashed is plain and a build hash (not decimal digits only). */
static bool plain_and_hash(const char *hashed, const char *plain)
{
  bool digits;
  size_t len = bpi_benchname_hash_stem(hashed, &digits);
  return len < strlen(hashed) && !digits && len == strlen(plain) &&
         !memcmp(hashed, plain, len);
}

bool bpi_benchname_hash_renamed(const char *base, const char *head)
{
  /* either side may be the one that carries the hash: a name stored
   * under --name and a build's hashed one now, or the reverse */
  return bpi_benchname_same_but_hash(base, head) ||
         plain_and_hash(base, head) || plain_and_hash(head, base);
}

static bool all_hex(const char *s, bool *decimal)
{
  size_t len = strlen(s);
  return hex_tail(s, len, decimal) == len;
}

/* Both the kernel's 15 characters of a name, alike up to a separator
 * after which both are hex digits to their end: a build hash cut short. */
static bool comm_cut_hash(const char *a, const char *b)
{
  size_t n = 0;
  if(strlen(a) != BP_COMM_MAX || strlen(b) != BP_COMM_MAX)
    return false;
  while(a[n] == b[n])
    n++;   /* they differ before their end: a != b */
  for(size_t s = n; s-- > 1;) {
    bool da, db;
    if(!strchr("-_.", a[s]))
      continue;
    return all_hex(a + s + 1, &da) && all_hex(b + s + 1, &db) &&
           !(da && db);
  }
  return false;
}

/* hashed the kernel's 15 characters of plain, a separator and hex digits
 * to its end: a hash cut short, that may be decimal digits only. */
static bool comm_cut_plain(const char *hashed, const char *plain)
{
  size_t len = strlen(plain);
  bool decimal;
  return strlen(hashed) == BP_COMM_MAX && len > 0 && len + 1 < BP_COMM_MAX &&
         !memcmp(hashed, plain, len) && strchr("-_.", hashed[len]) &&
         all_hex(hashed + len + 1, &decimal);
}

bool bpi_benchname_same_process(const char *a, const char *b)
{
  if(!strcmp(a, b))
    return false;
  return bpi_benchname_hash_renamed(a, b) || comm_cut_hash(a, b) ||
         comm_cut_plain(a, b) || comm_cut_plain(b, a);
}

/* The command line's word at s unquoted into buf, as record.c's
 * join_command quotes it: plain characters, '...', and the \' between
 * two quoted parts; returns where the word ends, or NULL when the word
 * does not fit in buf (then compared as it is written). */
static const char *word_at(const char *s, char *buf, size_t size)
{
  size_t n = 0;
  while(*s && *s != ' ') {
    bool quoted = *s == '\'';
    const char *end = quoted ? strchr(s + 1, '\'') : NULL;
    const char *from = quoted ? s + 1 : s + (s[0] == '\\' && s[1]);
    size_t len = quoted ? (end ? (size_t)(end - from) : strlen(from)) : 1;
    if(len >= size - n)
      return NULL;
    memcpy(buf + n, from, len);
    n += len;
    s = from + len + (quoted && end);
  }
  buf[n] = '\0';
  return s;
}

/* The program's file name in the command line cmd (its part after the
 * last '/') into buf, *name its start; returns the rest of the line (the
 * arguments), or NULL when the word does not fit (then *name is all of
 * cmd, compared as it is written). */
static const char *program(const char *cmd, char *buf, size_t size,
                           const char **name)
{
  const char *rest = word_at(cmd, buf, size);
  if(!rest) {   /* too long to be a file name: all of it, as written */
    *name = cmd;
    return NULL;
  }
  const char *slash = strrchr(buf, '/');
  *name = slash ? slash + 1 : buf;
  return rest;
}

#define REDACTED "***"   /* record.c's add_redacted: a hidden value */

/* Whether the argument hidden (unquoted) hides the argument arg: each
 * REDACTED in it stands for any run of characters in arg, the rest is
 * the same.  record.c's add_redacted hides a whole argument (after a
 * secret option), the value of NAME=, a header's or a scheme's
 * credentials ("--header=Authorization: Bearer ***"), a -u "user:***" and a URL's user
 * information ("***@" before the host), so the host and path around it
 * still tell two commands apart.  The run may be empty: an empty secret
 * is REDACTED too ("--token=" is published as "--token=***").  Both
 * sides may be hidden alike: arg's own REDACTED is then matched as
 * characters.  Greedy, backtracking to the last REDACTED only: what
 * follows one has no REDACTED before the next. */
static bool hides(const char *hidden, const char *arg)
{
  const size_t n = sizeof(REDACTED) - 1;
  const char *after = NULL;   /* the pattern after the last REDACTED */
  const char *from = NULL;    /* where that REDACTED's run ends now */
  while(*arg) {
    if(!strncmp(hidden, REDACTED, n)) {
      hidden += n;
      after = hidden;
      from = arg;
    } else if(*hidden == *arg) {
      hidden++;
      arg++;
    } else if(after) {   /* the last REDACTED takes one character more */
      hidden = after;
      arg = ++from;
    } else {
      return false;
    }
  }
  while(!strncmp(hidden, REDACTED, n))
    hidden += n;
  return !*hidden;
}

/* Whether the arguments a and b (the rest of two command lines after the
 * program) are the same, word by word, a hidden value on either side the
 * same as what it hides on the other: a base published before secrets
 * were hidden has them in the clear. */
static bool same_args(const char *a, const char *b)
{
  char wa[4096], wb[4096];
  for(;;) {
    a += *a == ' ';
    b += *b == ' ';
    if(!*a || !*b)
      return !*a && !*b;
    const char *ea = word_at(a, wa, sizeof(wa));
    const char *eb = word_at(b, wb, sizeof(wb));
    if(!ea || !eb)   /* a word too long for a value: the rest as written */
      return !strcmp(a, b);
    if(strcmp(wa, wb) && !hides(wa, wb) && !hides(wb, wa))
      return false;
    a = ea;
    b = eb;
  }
}

bool bpi_benchname_same_command(const char *a, const char *b)
{
  char buf_a[4096], buf_b[4096];
  const char *na, *nb;
  if(!a || !b)
    return true;
  const char *ra = program(a, buf_a, sizeof(buf_a), &na);
  const char *rb = program(b, buf_b, sizeof(buf_b), &nb);
  if(!ra || !rb)
    return !strcmp(a, b);
  /* the rule that pairs benchmarks */
  bool same = !strcmp(na, nb) || bpi_benchname_hash_renamed(na, nb);
  return same && same_args(ra, rb);
}

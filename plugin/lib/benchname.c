/* benchname: what of a benchmark's name is the build's (see benchname.h). */
#include "bp_setup.h"
#include "benchname.h"

#include <string.h>

#define CARGO_HASH_DIGITS 16
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
  size_t len = strlen(name), i = len;
  bool decimal = true;
  while(i > 0 && is_hex(name[i - 1])) {
    decimal = decimal && name[i - 1] >= '0' && name[i - 1] <= '9';
    i--;
  }
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
  /* both cut (neither is its own stem), the stems alike */
  return la < strlen(a) && lb < strlen(b) && la == lb &&
         !memcmp(a, b, la) && !(da && db);
}

/* The command line's first word (the program) unquoted into buf, as
 * record.c's join_command quotes it: plain characters, '...', and the
 * \' between two quoted parts; returns where the word ends, or NULL when
 * the word does not fit in buf (then compared as it is written). */
static const char *first_word(const char *s, char *buf, size_t size)
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
 * last '/', less a cargo hash) into buf, *name_len its length; returns
 * the rest of the line (the arguments). */
static const char *program(const char *cmd, char *buf, size_t size,
                           const char **name, size_t *name_len)
{
  const char *rest = first_word(cmd, buf, size);
  if(!rest) {   /* too long to be a file name: all of it, as written */
    *name = cmd;
    *name_len = strlen(cmd);
    return "";
  }
  const char *slash = strrchr(buf, '/');
  *name = slash ? slash + 1 : buf;
  *name_len = bpi_benchname_cargo_stem(*name);
  return rest;
}

bool bpi_benchname_same_command(const char *a, const char *b)
{
  char buf_a[4096], buf_b[4096];
  const char *na, *nb;
  size_t la, lb;
  if(!a || !b)
    return true;
  const char *ra = program(a, buf_a, sizeof(buf_a), &na, &la);
  const char *rb = program(b, buf_b, sizeof(buf_b), &nb, &lb);
  return la == lb && !memcmp(na, nb, la) && !strcmp(ra, rb);
}

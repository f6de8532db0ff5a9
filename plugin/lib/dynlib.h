/* dynlib: a shared library loaded at its first use instead of at start-up.
 *
 * Why: libcurl, libmicrohttpd and libpfm4 cost a profile's every start
 * thousands of relocations (and a library or two of their own) though
 * most runs never call them (http.c, serve.c, events.c).  Each of those
 * files keeps a table of typed function pointers; these helpers open the
 * library and fill the table, and say what went wrong in one line
 * ("cannot load SONAME: dlerror()'s text").  Not thread-safe: callers run
 * them under pthread_once. */
#ifndef BP_LIB_DYNLIB_H
#define BP_LIB_DYNLIB_H

#include <stdbool.h>
#include <stddef.h>

struct bp_dynlib {
  void *handle;
  const char *soname;
  const char *missing;  /* the first symbol not found, or NULL */
  char *error;          /* the caller's buffer for the one-line reason */
  size_t error_len;
};

/* Open soname.  False (error filled) when it cannot be loaded. */
bool bpi_dynlib_open(struct bp_dynlib *l, const char *soname, char *error,
                     size_t error_len);

/* The address of name, or NULL (the first such name kept in missing). */
void *bpi_dynlib_sym(struct bp_dynlib *l, const char *name);

/* After the lookups: true when every symbol was found; otherwise the
 * library is closed again and error says which symbol was missing. */
bool bpi_dynlib_done(struct bp_dynlib *l);

/* Fill table.member from the symbol PREFIX "member" (dlsym's void * to the
 * member's own function pointer type, as POSIX allows). */
#define BPI_DYNLIB_LOAD(l, table, prefix, member)                       \
  ((table).member = (__typeof__((table).member))                        \
     bpi_dynlib_sym((l), prefix #member))

#endif

#include "bp_setup.h"
#include "dynlib.h"

#include <dlfcn.h>
#include <stdio.h>

/* dlerror()'s text names the file or the symbol; fallback when it has
 * none. */
static void failed(struct bp_dynlib *l, const char *fallback)
{
  const char *why = dlerror();
  snprintf(l->error, l->error_len, "cannot load %s: %s", l->soname,
           why ? why : fallback);
}

bool bpi_dynlib_open(struct bp_dynlib *l, const char *soname, char *error,
                     size_t error_len)
{
  l->soname = soname;
  l->missing = NULL;
  l->error = error;
  l->error_len = error_len;
  l->handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if(!l->handle)
    failed(l, "not found");
  return l->handle != NULL;
}

void *bpi_dynlib_sym(struct bp_dynlib *l, const char *name)
{
  if(l->missing)
    return NULL;  /* the first failure's dlerror() is the one to keep */
  void *p = dlsym(l->handle, name);
  if(!p) {
    l->missing = name;
    failed(l, name);
  }
  return p;
}

bool bpi_dynlib_done(struct bp_dynlib *l)
{
  if(!l->missing)
    return true;
  dlclose(l->handle);
  l->handle = NULL;
  return false;
}

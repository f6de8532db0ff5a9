/* First include of every library and command source file: feature macros
 * and the configure results, so every file sees the same environment. */
#ifndef BP_LIB_SETUP_H
#define BP_LIB_SETUP_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#ifdef HAVE_CONFIG_H
#include "bp_autoconf.h"
#endif

#ifdef BP_UNITTEST
#define BP_STATIC
#else
#define BP_STATIC static
#endif

#define BP_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif

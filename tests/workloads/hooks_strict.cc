/* The same program as C++: hooks.h must compile and work there too. */
#include "hooks_strict.c"

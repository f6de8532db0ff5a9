/* compare: being written. */
#include "bp_setup.h"

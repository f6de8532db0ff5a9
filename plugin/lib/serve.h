/* serve: being written. */
#ifndef BP_LIB_SERVE_H
#define BP_LIB_SERVE_H
#endif

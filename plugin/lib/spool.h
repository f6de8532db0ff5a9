/* spool: being written. */
#ifndef BP_LIB_SPOOL_H
#define BP_LIB_SPOOL_H
#endif

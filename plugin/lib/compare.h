/* compare: being written. */
#ifndef BP_LIB_COMPARE_H
#define BP_LIB_COMPARE_H
#endif

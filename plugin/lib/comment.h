/* comment: being written. */
#ifndef BP_LIB_COMMENT_H
#define BP_LIB_COMMENT_H
#endif

/* comment_int: what comment.c (the layout) takes from comment_md.c (the
 * Markdown that must be safe: escaping, code spans, link targets).
 * Internal to them. */
#ifndef BP_LIB_COMMENT_INT_H
#define BP_LIB_COMMENT_INT_H

#include <stdbool.h>

#include "buf.h"
#include "comment.h"

/* A code span when s can be one, else escaped text. */
void bpi_comment_md_code(struct bp_buf *b, const char *s);
/* A link target: only http(s) URLs (false, nothing added, for others);
 * bytes that could end the target or start markup percent-encoded. */
bool bpi_comment_md_url(struct bp_buf *b, const char *url);

#endif

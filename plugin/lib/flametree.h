/* flametree: the tree both flame graphs draw (export_svg.c, one profile;
 * export_diffsvg.c, two).  Stacks are merged by label from the root: node
 * 0 is the root, every other node the child of its parent called name,
 * created on first use; n[] counts the samples in a node and below it
 * (the flame graph uses n[0], the differential one base and head).
 * bpi_ftree_sort() links children in sibling lists sorted by name, so
 * equal inputs draw equal files.  Owns its nodes and names. */
#ifndef BP_LIB_FLAMETREE_H
#define BP_LIB_FLAMETREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "hash.h"

struct bp_ftnode {
  uint32_t name;          /* in names */
  uint32_t parent;
  uint32_t first_child;   /* BP_NONE when none (until sorted: always) */
  uint32_t next_sibling;
  uint64_t n[2];
};

struct bp_ftree {
  struct bp_ftnode *nodes;
  uint32_t count, cap;
  struct bp_map index;     /* (parent, name) -> node */
  struct bp_strtab names;
  struct bp_buf scratch;   /* a name being interned */
  bool nomem;              /* a node could not be added: the tree is short */
};

void bpi_ftree_init(struct bp_ftree *t);
void bpi_ftree_cleanup(struct bp_ftree *t);

/* The child of parent called name[0..len) (parent BP_NONE: the root),
 * created on first use; BP_NONE, and nomem set, when memory ran out. */
uint32_t bpi_ftree_child(struct bp_ftree *t, uint32_t parent,
                         const char *name, size_t len);

/* Link every node's children into a sibling list sorted by name.  False
 * when memory ran out. */
bool bpi_ftree_sort(struct bp_ftree *t);

static inline const char *bpi_ftree_name(const struct bp_ftree *t,
                                         uint32_t node)
{
  return bpi_strtab_get(&t->names, t->nodes[node].name);
}

#endif

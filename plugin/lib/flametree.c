#include "bp_setup.h"
#include "flametree.h"

#include <stdlib.h>
#include <string.h>

void bpi_ftree_init(struct bp_ftree *t)
{
  memset(t, 0, sizeof(*t));
  bpi_map_init(&t->index);
  bpi_strtab_init(&t->names);
  bpi_buf_init(&t->scratch);
}

void bpi_ftree_cleanup(struct bp_ftree *t)
{
  bpi_buf_cleanup(&t->scratch);
  bpi_strtab_cleanup(&t->names);
  bpi_map_cleanup(&t->index);
  free(t->nodes);
  t->nodes = NULL;
  t->count = t->cap = 0;
}

uint32_t bpi_ftree_child(struct bp_ftree *t, uint32_t parent,
                         const char *name, size_t len)
{
  bpi_buf_reset(&t->scratch);
  bpi_buf_add(&t->scratch, name, len);
  uint32_t id = bpi_buf_failed(&t->scratch) ? BP_NONE :
    bpi_strtab_intern(&t->names, t->scratch.data ? t->scratch.data : "");
  if(id == BP_NONE)
    goto nomem;
  uint32_t n = bpi_map_get(&t->index, parent, id);
  if(n != BP_NONE)
    return n;
  if(t->count == t->cap) {
    uint32_t cap = t->cap ? t->cap * 2 : 256;
    struct bp_ftnode *nodes = cap > t->cap ?
      realloc(t->nodes, (size_t)cap * sizeof(*nodes)) : NULL;
    if(!nodes)
      goto nomem;
    t->nodes = nodes;
    t->cap = cap;
  }
  n = t->count;
  if(bpi_map_put(&t->index, parent, id, n))
    goto nomem;
  t->nodes[n] = (struct bp_ftnode){.name = id, .parent = parent,
                                   .first_child = BP_NONE,
                                   .next_sibling = BP_NONE};
  t->count++;
  return n;
nomem:
  t->nomem = true;
  return BP_NONE;
}

struct sort_key {
  uint32_t parent;
  uint32_t node;
  const char *name;
};

static int by_parent_name(const void *a, const void *b)
{
  const struct sort_key *x = a, *y = b;
  if(x->parent != y->parent)
    return x->parent < y->parent ? -1 : 1;
  return strcmp(x->name, y->name);
}

bool bpi_ftree_sort(struct bp_ftree *t)
{
  uint32_t n = t->count ? t->count - 1 : 0;  /* all but the root */
  struct sort_key *keys = calloc(n ? n : 1, sizeof(*keys));
  if(!keys)
    return false;
  for(uint32_t i = 0; i < n; i++)
    keys[i] = (struct sort_key){t->nodes[i + 1].parent, i + 1,
                                bpi_ftree_name(t, i + 1)};
  qsort(keys, n, sizeof(*keys), by_parent_name);
  for(uint32_t i = n; i--;) {
    struct bp_ftnode *parent = &t->nodes[keys[i].parent];
    t->nodes[keys[i].node].next_sibling = parent->first_child;
    parent->first_child = keys[i].node;
  }
  free(keys);
  return true;
}

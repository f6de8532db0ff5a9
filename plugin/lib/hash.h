/* hash: the two interning tables every stage uses.
 *  - struct bp_map: (u64, u64) key -> u32 value, open addressing.  Keys are
 *    exact (no lossy packing), so callers key frames by (module, address)
 *    and stacks by (parent, frame) without collisions.
 *  - struct bp_strtab: string interner; equal strings get equal ids, ids are
 *    dense from 0 in insertion order.  Owns copies of the strings.
 *  - struct bp_name_index: name -> position in the caller's array (the
 *    first position given for a name), built once where a loop would
 *    otherwise look each name up by a scan (quadratic over a suite of
 *    thousands of benchmarks).
 * None is thread-safe. */
#ifndef BP_LIB_HASH_H
#define BP_LIB_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "benchprof/benchprof.h"

#define BP_NONE UINT32_MAX

struct bp_map_slot {
  uint64_t k1, k2;
  uint32_t val;  /* BP_NONE marks an empty slot */
};

struct bp_map {
  struct bp_map_slot *slots;
  size_t cap;    /* power of two */
  size_t count;
};

void bpi_map_init(struct bp_map *m);
void bpi_map_cleanup(struct bp_map *m);
/* Value for the key, or BP_NONE. */
uint32_t bpi_map_get(const struct bp_map *m, uint64_t k1, uint64_t k2);
/* Insert or overwrite; val must not be BP_NONE. */
bp_code bpi_map_put(struct bp_map *m, uint64_t k1, uint64_t k2, uint32_t val);

struct bp_strtab {
  char **strs;      /* id -> string */
  size_t count, cap;
  uint32_t *index;  /* open-addressed table of ids, BP_NONE when empty */
  size_t index_cap;
};

void bpi_strtab_init(struct bp_strtab *t);
void bpi_strtab_cleanup(struct bp_strtab *t);
/* Id of s, adding a copy when new.  BP_NONE on allocation failure. */
uint32_t bpi_strtab_intern(struct bp_strtab *t, const char *s);
/* Id of s when present, else BP_NONE. */
uint32_t bpi_strtab_find(const struct bp_strtab *t, const char *s);
static inline const char *bpi_strtab_get(const struct bp_strtab *t,
                                         uint32_t id)
{
  return id < t->count ? t->strs[id] : "";
}

struct bp_name_index {
  struct bp_strtab names;
  uint32_t *pos;    /* name id -> position */
  size_t pos_cap;
};

void bpi_name_index_init(struct bp_name_index *ix);
void bpi_name_index_cleanup(struct bp_name_index *ix);
/* Remember pos for name unless name has one already (the first wins). */
bp_code bpi_name_index_add(struct bp_name_index *ix, const char *name,
                           uint32_t pos);
/* The position of name, or BP_NONE. */
uint32_t bpi_name_index_find(const struct bp_name_index *ix,
                             const char *name);

uint64_t bpi_hash_bytes(const void *data, size_t len);
/* The same for n 64-bit words (addresses), a word at a time: a sample's
 * chain is hashed for every sample, and byte by byte that shows. */
uint64_t bpi_hash_u64s(const uint64_t *v, size_t n);

#endif

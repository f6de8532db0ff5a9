#include "bp_setup.h"
#include "hash.h"

#include <stdlib.h>
#include <string.h>

/* Finalizer of splitmix64: cheap and mixes every input bit. */
static uint64_t mix64(uint64_t x)
{
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

uint64_t bpi_hash_bytes(const void *data, size_t len)
{
  /* FNV-1a, then mixed: strings here are short symbol names */
  const unsigned char *p = data;
  uint64_t h = 0xcbf29ce484222325ULL;
  for(size_t i = 0; i < len; i++) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return mix64(h);
}

uint64_t bpi_hash_u64s(const uint64_t *v, size_t n)
{
  /* one multiply and shift a word; mix64 at the end spreads the rest */
  uint64_t h = 0x84222325cbf29ce4ULL ^ n;
  for(size_t i = 0; i < n; i++) {
    h = (h ^ v[i]) * 0x9e3779b97f4a7c15ULL;
    h ^= h >> 29;
  }
  return mix64(h);
}

static size_t slot_of(uint64_t k1, uint64_t k2, size_t cap)
{
  return (size_t)(mix64(k1 ^ mix64(k2 + 0x9e3779b97f4a7c15ULL)) & (cap - 1));
}

void bpi_map_init(struct bp_map *m)
{
  memset(m, 0, sizeof(*m));
}

void bpi_map_cleanup(struct bp_map *m)
{
  free(m->slots);
  bpi_map_init(m);
}

uint32_t bpi_map_get(const struct bp_map *m, uint64_t k1, uint64_t k2)
{
  if(!m->cap)
    return BP_NONE;
  for(size_t i = slot_of(k1, k2, m->cap);; i = (i + 1) & (m->cap - 1)) {
    const struct bp_map_slot *s = &m->slots[i];
    if(s->val == BP_NONE)
      return BP_NONE;
    if(s->k1 == k1 && s->k2 == k2)
      return s->val;
  }
}

static void insert_slot(struct bp_map_slot *slots, size_t cap,
                        const struct bp_map_slot *in)
{
  size_t i = slot_of(in->k1, in->k2, cap);
  while(slots[i].val != BP_NONE)
    i = (i + 1) & (cap - 1);
  slots[i] = *in;
}

static bp_code grow(struct bp_map *m)
{
  size_t cap = m->cap ? m->cap * 2 : 64;
  struct bp_map_slot *slots = malloc(cap * sizeof(*slots));
  if(!slots)
    return BPE_NOMEM;
  for(size_t i = 0; i < cap; i++)
    slots[i].val = BP_NONE;
  for(size_t i = 0; i < m->cap; i++)
    if(m->slots[i].val != BP_NONE)
      insert_slot(slots, cap, &m->slots[i]);
  free(m->slots);
  m->slots = slots;
  m->cap = cap;
  return BP_OK;
}

bp_code bpi_map_put(struct bp_map *m, uint64_t k1, uint64_t k2, uint32_t val)
{
  if((m->count + 1) * 4 > m->cap * 3) {  /* keep load under 75% */
    bp_code rc = grow(m);
    if(rc)
      return rc;
  }
  for(size_t i = slot_of(k1, k2, m->cap);; i = (i + 1) & (m->cap - 1)) {
    struct bp_map_slot *s = &m->slots[i];
    if(s->val == BP_NONE) {
      s->k1 = k1;
      s->k2 = k2;
      s->val = val;
      m->count++;
      return BP_OK;
    }
    if(s->k1 == k1 && s->k2 == k2) {
      s->val = val;
      return BP_OK;
    }
  }
}

void bpi_strtab_init(struct bp_strtab *t)
{
  memset(t, 0, sizeof(*t));
}

void bpi_strtab_cleanup(struct bp_strtab *t)
{
  for(size_t i = 0; i < t->count; i++)
    free(t->strs[i]);
  free(t->strs);
  free(t->index);
  bpi_strtab_init(t);
}

static size_t find_index_slot(const struct bp_strtab *t, const char *s,
                              uint64_t h)
{
  size_t i = (size_t)(h & (t->index_cap - 1));
  while(t->index[i] != BP_NONE && strcmp(t->strs[t->index[i]], s) != 0)
    i = (i + 1) & (t->index_cap - 1);
  return i;
}

uint32_t bpi_strtab_find(const struct bp_strtab *t, const char *s)
{
  if(!t->index_cap)
    return BP_NONE;
  size_t i = find_index_slot(t, s, bpi_hash_bytes(s, strlen(s)));
  return t->index[i];
}

static bool grow_index(struct bp_strtab *t)
{
  size_t cap = t->index_cap ? t->index_cap * 2 : 256;
  uint32_t *index = malloc(cap * sizeof(*index));
  if(!index)
    return false;
  for(size_t i = 0; i < cap; i++)
    index[i] = BP_NONE;
  free(t->index);
  t->index = index;
  t->index_cap = cap;
  for(size_t id = 0; id < t->count; id++) {
    const char *s = t->strs[id];
    t->index[find_index_slot(t, s, bpi_hash_bytes(s, strlen(s)))] =
      (uint32_t)id;
  }
  return true;
}

uint32_t bpi_strtab_intern(struct bp_strtab *t, const char *s)
{
  if(!s)
    s = "";
  if((t->count + 1) * 2 > t->index_cap && !grow_index(t))
    return BP_NONE;
  size_t len = strlen(s);
  size_t slot = find_index_slot(t, s, bpi_hash_bytes(s, len));
  if(t->index[slot] != BP_NONE)
    return t->index[slot];
  if(t->count == t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 256;
    char **strs = realloc(t->strs, cap * sizeof(*strs));
    if(!strs)
      return BP_NONE;
    t->strs = strs;
    t->cap = cap;
  }
  char *copy = malloc(len + 1);
  if(!copy)
    return BP_NONE;
  memcpy(copy, s, len + 1);
  t->strs[t->count] = copy;
  t->index[slot] = (uint32_t)t->count;
  return (uint32_t)t->count++;
}

void bpi_name_index_init(struct bp_name_index *ix)
{
  memset(ix, 0, sizeof(*ix));
  bpi_strtab_init(&ix->names);
}

void bpi_name_index_cleanup(struct bp_name_index *ix)
{
  bpi_strtab_cleanup(&ix->names);
  free(ix->pos);
  bpi_name_index_init(ix);
}

bp_code bpi_name_index_add(struct bp_name_index *ix, const char *name,
                           uint32_t pos)
{
  if(ix->names.count >= ix->pos_cap) {  /* room first: a new name's id */
    size_t cap = ix->pos_cap ? ix->pos_cap * 2 : 64;
    uint32_t *grown = realloc(ix->pos, cap * sizeof(*grown));
    if(!grown)
      return BPE_NOMEM;
    ix->pos = grown;
    ix->pos_cap = cap;
  }
  size_t before = ix->names.count;
  uint32_t id = bpi_strtab_intern(&ix->names, name);
  if(id == BP_NONE)
    return BPE_NOMEM;
  if(ix->names.count > before)  /* new: a known name keeps its first */
    ix->pos[id] = pos;
  return BP_OK;
}

uint32_t bpi_name_index_find(const struct bp_name_index *ix,
                             const char *name)
{
  uint32_t id = name ? bpi_strtab_find(&ix->names, name) : BP_NONE;
  return id == BP_NONE ? BP_NONE : ix->pos[id];
}

#include "bp_setup.h"
#include "procs.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bpi_procs_init(struct bp_procs *ps)
{
  memset(ps, 0, sizeof(*ps));
  bpi_strtab_init(&ps->strings);
  bpi_map_init(&ps->pid_index);
  bpi_map_init(&ps->comm_index);
  ps->proc_root = "/proc";
}

void bpi_procs_cleanup(struct bp_procs *ps)
{
  for(uint32_t i = 0; i < ps->nprocs; i++) {
    free(ps->procs[i].maps);
    free(ps->procs[i].old_maps);
  }
  free(ps->procs);
  bpi_strtab_cleanup(&ps->strings);
  bpi_map_cleanup(&ps->pid_index);
  bpi_map_cleanup(&ps->comm_index);
  const char *root = ps->proc_root;
  memset(ps, 0, sizeof(*ps));
  ps->proc_root = root;
}

struct bp_proc *bpi_procs_get(struct bp_procs *ps, uint32_t pid)
{
  uint32_t idx = bpi_map_get(&ps->pid_index, pid, 0);
  if(idx != BP_NONE)
    return &ps->procs[idx];
  if(ps->nprocs == ps->cap) {
    uint32_t cap = ps->cap ? ps->cap * 2 : 16;
    struct bp_proc *np = realloc(ps->procs, cap * sizeof(*np));
    if(!np)
      return NULL;
    ps->procs = np;
    ps->cap = cap;
  }
  idx = ps->nprocs;
  if(bpi_map_put(&ps->pid_index, pid, 0, idx))
    return NULL;
  ps->procs[idx] = (struct bp_proc){.pid = pid};
  ps->nprocs++;
  return &ps->procs[idx];
}

static enum bp_mapping_kind kind_of(const char *path)
{
  if(!path[0] || !strncmp(path, "//anon", 6) || !strncmp(path, "[anon", 5) ||
     !strcmp(path, "[heap]") || !strncmp(path, "[stack", 6) ||
     !strncmp(path, "/memfd:", 7))
    return BP_MAP_ANON;
  if(!strcmp(path, "[vdso]"))
    return BP_MAP_FILE;  /* symbols.c reads it from its own memory */
  if(path[0] == '[' || path[0] != '/')
    return BP_MAP_SPECIAL;
  return BP_MAP_FILE;
}

static bool reserve_maps(struct bp_proc *p, uint32_t extra)
{
  if(p->nmaps + extra <= p->cap)
    return true;
  uint32_t cap = p->cap ? p->cap : 16;
  while(cap < p->nmaps + extra)
    cap *= 2;
  struct bp_mapping *m = realloc(p->maps, cap * sizeof(*m));
  if(!m)
    return false;
  p->maps = m;
  p->cap = cap;
  return true;
}

/* Remove [start, end) from p's mappings, trimming partial overlaps. */
static bool punch_hole(struct bp_proc *p, uint64_t start, uint64_t end)
{
  if(!reserve_maps(p, 1))  /* a split adds at most one mapping */
    return false;
  for(uint32_t i = 0; i < p->nmaps;) {
    struct bp_mapping *m = &p->maps[i];
    if(m->end <= start || m->start >= end) {
      i++;
      continue;
    }
    if(m->start < start && m->end > end) {  /* split in two */
      struct bp_mapping right = *m;
      right.pgoff += end - m->start;
      right.start = end;
      right.lib = BP_NONE;
      right.delta_state = 0;
      m->end = start;
      memmove(&p->maps[i + 2], &p->maps[i + 1],
              (p->nmaps - i - 1) * sizeof(*m));
      p->maps[i + 1] = right;
      p->nmaps++;
      return true;
    }
    if(m->start < start) {
      m->end = start;
      i++;
    }
    else if(m->end > end) {
      m->pgoff += end - m->start;
      m->start = end;
      m->delta_state = 0;
      i++;
    }
    else {
      memmove(m, m + 1, (p->nmaps - i - 1) * sizeof(*m));
      p->nmaps--;
    }
  }
  return true;
}

static bp_code insert_mapping(struct bp_procs *ps, struct bp_proc *p,
                              uint64_t start, uint64_t end, uint64_t pgoff,
                              const char *path, const char *build_id)
{
  uint32_t path_id = bpi_strtab_intern(&ps->strings, path);
  if(path_id == BP_NONE || !punch_hole(p, start, end) || !reserve_maps(p, 1))
    return BPE_NOMEM;
  uint32_t i = p->nmaps;
  while(i > 0 && p->maps[i - 1].start > start)
    i--;
  memmove(&p->maps[i + 1], &p->maps[i], (p->nmaps - i) * sizeof(*p->maps));
  struct bp_mapping *m = &p->maps[i];
  memset(m, 0, sizeof(*m));
  m->start = start;
  m->end = end;
  m->pgoff = pgoff;
  m->path = path_id;
  m->kind = (uint8_t)kind_of(path);
  m->lib = BP_NONE;
  if(build_id)
    snprintf(m->build_id, sizeof(m->build_id), "%s", build_id);
  p->nmaps++;
  p->gen++;
  return BP_OK;
}

bp_code bpi_procs_add_mapping(struct bp_procs *ps, uint32_t pid,
                              uint64_t start, uint64_t len, uint64_t pgoff,
                              const char *path, const char *build_id)
{
  struct bp_proc *p = bpi_procs_get(ps, pid);
  if(!p)
    return BPE_NOMEM;
  if(len == 0 || start + len < start)
    return BPE_FORMAT;
  return insert_mapping(ps, p, start, start + len, pgoff, path, build_id);
}

bp_code bpi_procs_fork(struct bp_procs *ps, uint32_t parent, uint32_t child)
{
  if(parent == child)
    return BP_OK;  /* a new thread shares the address space */
  struct bp_proc *c = bpi_procs_get(ps, child);
  if(!c)
    return BPE_NOMEM;
  /* get the parent after the child: adding a process may move the array */
  uint32_t pidx = bpi_map_get(&ps->pid_index, parent, 0);
  if(pidx == BP_NONE)
    return BP_OK;
  c = bpi_procs_get(ps, child);
  struct bp_proc *p = &ps->procs[pidx];
  if(!reserve_maps(c, p->nmaps))
    return BPE_NOMEM;
  /* a parent with no mappings yet has maps == NULL: no memcpy from it */
  if(p->nmaps)
    memcpy(c->maps, p->maps, p->nmaps * sizeof(*p->maps));
  c->nmaps = p->nmaps;
  c->gen++;
  return BP_OK;
}

void bpi_procs_exec(struct bp_procs *ps, uint32_t pid)
{
  struct bp_proc *p = bpi_procs_get(ps, pid);
  if(!p)
    return;
  /* the old image's mappings move aside whole (their caches with them);
   * an exec that failed after the point of no return leaves nothing to
   * return to, and a second exec before the first returned is not
   * possible: one list of old mappings is all there is */
  free(p->old_maps);
  p->old_maps = p->maps;
  p->nold_maps = p->nmaps;
  p->maps = NULL;
  p->nmaps = p->cap = 0;
  p->gen++;
  p->proc_maps_read = false;
}

void bpi_procs_exec_returned(struct bp_procs *ps, uint32_t pid)
{
  uint32_t idx = bpi_map_get(&ps->pid_index, pid, 0);
  if(idx == BP_NONE || !ps->procs[idx].old_maps)
    return;
  struct bp_proc *p = &ps->procs[idx];
  free(p->old_maps);
  p->old_maps = NULL;
  p->nold_maps = 0;
  p->gen++;
}

bool bpi_procs_execing(const struct bp_procs *ps, uint32_t pid)
{
  uint32_t idx = bpi_map_get(&ps->pid_index, pid, 0);
  return idx != BP_NONE && ps->procs[idx].old_maps;
}

bp_code bpi_procs_set_comm(struct bp_procs *ps, uint32_t tid,
                           const char *comm)
{
  uint32_t id = bpi_strtab_intern(&ps->strings, comm);
  if(id == BP_NONE)
    return BPE_NOMEM;
  return bpi_map_put(&ps->comm_index, tid, 0, id);
}

const char *bpi_procs_comm(const struct bp_procs *ps, uint32_t tid)
{
  uint32_t id = bpi_map_get(&ps->comm_index, tid, 0);
  return id == BP_NONE ? NULL : bpi_strtab_get(&ps->strings, id);
}

static struct bp_mapping *search_in(struct bp_mapping *maps, uint32_t n,
                                    uint64_t addr)
{
  uint32_t lo = 0, hi = n;
  while(lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    struct bp_mapping *m = &maps[mid];
    if(addr < m->start)
      hi = mid;
    else if(addr >= m->end)
      lo = mid + 1;
    else
      return m;
  }
  return NULL;
}

static struct bp_mapping *search(struct bp_proc *p, uint64_t addr)
{
  return search_in(p->maps, p->nmaps, addr);
}

/* Add the executable mappings of /proc/PID/maps that we do not know. */
static void load_proc_maps(struct bp_procs *ps, struct bp_proc *p)
{
  char path[64], line[4352];
  p->proc_maps_read = true;
  snprintf(path, sizeof(path), "%s/%u/maps", ps->proc_root, p->pid);
  FILE *f = fopen(path, "r");
  if(!f)
    return;
  uint32_t pid = p->pid;
  while(fgets(line, sizeof(line), f)) {
    uint64_t start, end, off;
    char perms[8];
    int name_at = 0;
    if(sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n",
              &start, &end, perms, &off, &name_at) < 4 || perms[2] != 'x')
      continue;
    char *name = name_at ? line + name_at : (char *)"";
    name[strcspn(name, "\n")] = '\0';
    struct bp_proc *cur = bpi_procs_get(ps, pid);
    if(!cur || search(cur, start))
      continue;
    insert_mapping(ps, cur, start, end, off, name, NULL);
  }
  fclose(f);
}

void bpi_procs_load(struct bp_procs *ps, uint32_t pid)
{
  struct bp_proc *p = bpi_procs_get(ps, pid);
  if(p)
    load_proc_maps(ps, p);
}

struct bp_mapping *bpi_procs_find_current(struct bp_procs *ps, uint32_t pid,
                                          uint64_t addr)
{
  uint32_t idx = bpi_map_get(&ps->pid_index, pid, 0);
  return idx == BP_NONE ? NULL : search(&ps->procs[idx], addr);
}

struct bp_mapping *bpi_procs_find(struct bp_procs *ps, uint32_t pid,
                                  uint64_t addr, bool load_proc)
{
  struct bp_proc *p = bpi_procs_get(ps, pid);
  if(!p)
    return NULL;
  struct bp_mapping *m = search(p, addr);
  if(!m && p->old_maps)
    m = search_in(p->old_maps, p->nold_maps, addr);
  if(m || !load_proc || p->proc_maps_read)
    return m;
  load_proc_maps(ps, p);
  p = bpi_procs_get(ps, pid);
  return p ? search(p, addr) : NULL;
}

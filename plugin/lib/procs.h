/* procs: the address spaces and names of the profiled processes, rebuilt
 * from MMAP, COMM and FORK records (perf's machine/thread/map, without
 * reference counts: procs owns every mapping until bpi_procs_cleanup()).
 *
 * A process's mappings are kept sorted and non-overlapping; a new mapping
 * replaces what it overlaps, as mmap(2) does.  fork copies the parent's
 * mappings (the kernel sends none for the child), exec starts an empty
 * set.  The image an exec replaces is kept until the exec is seen to have
 * returned: the kernel swaps in the new address space (and sends the
 * exec's COMM record) early in execve, then maps the new program, and
 * every sample taken meanwhile has its user-space part, the execve call,
 * in the old image.
 * Mappings made before the events were enabled are read from
 * /proc/PID/maps on the first miss.  Not thread-safe. */
#ifndef BP_LIB_PROCS_H
#define BP_LIB_PROCS_H

#include <stdbool.h>
#include <stdint.h>

#include "hash.h"

enum bp_mapping_kind {
  BP_MAP_FILE = 0,  /* a file on disk: symbolize from it */
  BP_MAP_ANON,      /* anonymous memory: JIT code, perf-PID.map */
  BP_MAP_SPECIAL,   /* [vdso], [vsyscall] and the like */
};

struct bp_mapping {
  uint64_t start, end, pgoff;
  uint32_t path;         /* string id in procs->strings */
  char build_id[41];     /* lowercase hex from MMAP2, "" when none */
  uint8_t kind;          /* enum bp_mapping_kind */
  /* caches for the converter, filled on first use */
  uint32_t lib;          /* profile lib id, BP_NONE until set */
  int64_t delta;         /* file offset -> ELF vaddr */
  uint8_t delta_state;   /* 0 unknown, 1 known, 2 not an ELF file */
  /* the mapped file's identity when the kernel sent no build id */
  bool has_ino;
  uint32_t maj, min;
  uint64_t ino;
};

struct bp_proc {
  uint32_t pid;
  struct bp_mapping *maps;
  uint32_t nmaps, cap;
  /* the image an exec replaced, until bpi_procs_exec_returned() */
  struct bp_mapping *old_maps;
  uint32_t nold_maps;
  uint32_t gen;          /* changes whenever the mappings do */
  bool proc_maps_read;   /* /proc/PID/maps was consulted already */
};

struct bp_procs {
  struct bp_strtab strings;
  struct bp_proc *procs;
  uint32_t nprocs, cap;
  struct bp_map pid_index;  /* (pid, 0) -> procs index */
  struct bp_map comm_index; /* (tid, 0) -> string id of the latest comm */
  const char *proc_root;    /* "/proc" unless a test says otherwise */
};

void bpi_procs_init(struct bp_procs *ps);
void bpi_procs_cleanup(struct bp_procs *ps);

/* The process, created empty on first use; NULL when memory ran out. */
struct bp_proc *bpi_procs_get(struct bp_procs *ps, uint32_t pid);

bp_code bpi_procs_add_mapping(struct bp_procs *ps, uint32_t pid,
                              uint64_t start, uint64_t len, uint64_t pgoff,
                              const char *path, const char *build_id);
bp_code bpi_procs_fork(struct bp_procs *ps, uint32_t parent, uint32_t child);
void bpi_procs_exec(struct bp_procs *ps, uint32_t pid);
/* pid's exec has returned to user space: forget the image it replaced. */
void bpi_procs_exec_returned(struct bp_procs *ps, uint32_t pid);
/* Whether pid is in an exec whose old image is still kept. */
bool bpi_procs_execing(const struct bp_procs *ps, uint32_t pid);
/* Add the executable mappings of /proc/PID/maps that are not known yet
 * (a process about to exec: the image its exec replaces). */
void bpi_procs_load(struct bp_procs *ps, uint32_t pid);
bp_code bpi_procs_set_comm(struct bp_procs *ps, uint32_t tid,
                           const char *comm);

/* The mapping holding addr, or NULL: the current image's, else, during
 * an exec, the old image's.  With load_proc, a miss reads /proc/PID/maps
 * once and looks again. */
struct bp_mapping *bpi_procs_find(struct bp_procs *ps, uint32_t pid,
                                  uint64_t addr, bool load_proc);
/* The current image's mapping holding addr, or NULL. */
struct bp_mapping *bpi_procs_find_current(struct bp_procs *ps, uint32_t pid,
                                          uint64_t addr);

/* The latest name of tid, or NULL when none was seen. */
const char *bpi_procs_comm(const struct bp_procs *ps, uint32_t tid);
static inline const char *bpi_procs_path(const struct bp_procs *ps,
                                         const struct bp_mapping *m)
{
  return bpi_strtab_get(&ps->strings, m->path);
}

#endif

/* symbols: (module file, address) -> function, source file and line.  The
 * only libdw/libelf and libiberty user.
 *
 * Input: a module's path (and build id when the kernel reported one) and an
 * ELF virtual address inside it; or a kernel address; or a JIT address of a
 * process with a /tmp/perf-PID.map.  Output: struct bp_sym, whose strings
 * are owned by the cache and stay valid until bpi_symbols_free().
 * Modules are opened once and cached, separate debug files are found by
 * build id and .gnu_debuglink (and, when asked for, on debuginfod
 * servers), C++ and Rust names are demangled.
 * Not thread-safe. */
#ifndef BP_LIB_SYMBOLS_H
#define BP_LIB_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "benchprof/benchprof.h"

struct bp_symbols;

/* Which modules get source files and lines.  Looking them up makes libdw
 * read (and, in Debian's debug packages, inflate) a module's whole DWARF:
 * hundreds of milliseconds for libc's, for lines nobody benchmarking their
 * own code reads.  Names come from the symbol table either way. */
enum bp_lines {
  BP_LINES_OWN = 0,  /* all but system libraries (/lib, /usr/lib ...) */
  BP_LINES_ALL,
  BP_LINES_NONE,
};

struct bp_symbols_opts {
  enum bp_lines lines;
  const char *jit_map_dir;  /* where perf-PID.map files live; NULL: "/tmp" */
  const char *kallsyms;     /* NULL: "/proc/kallsyms" */
  bool demangle;            /* true unless the user asked for raw names */
  bool no_inline;           /* no inlined calls (bp_sym.inlines) */
  /* Separate debug files missing on the machine are asked of these
   * debuginfod servers (space-separated URLs, as in DEBUGINFOD_URLS) by
   * build id.  NULL: none is asked, whatever the environment says.  Each
   * lookup sets DEBUGINFOD_URLS, _TIMEOUT, _MAXTIME (and _CACHE_PATH
   * when debuginfod_cache is given) in the environment, the only way to
   * tell libdebuginfod, and removes them after it. */
  const char *debuginfod;
  const char *debuginfod_cache;  /* NULL: libdebuginfod's default */
  long debuginfod_timeout_ms;    /* all lookups together; 0: 30 s */
};

#define BP_DEBUGINFOD_TIMEOUT_MS 30000

/* What the debuginfod lookups did (all zero when off). */
struct bp_debuginfod_stats {
  unsigned asked;     /* modules looked up */
  unsigned found;     /* debug files the servers (or the cache) had */
  bool stopped;       /* a lookup failed or the time ran out: the rest
                       * were not asked */
  char error[256];    /* why it stopped, "" when it did not */
};

/* A function the compiler inlined at the address: DWARF's
 * DW_TAG_inlined_subroutine. */
struct bp_sym_inline {
  const char *name;    /* demangled */
  const char *file;    /* where the address is inside it, NULL unknown */
  uint32_t line;       /* 0 when unknown */
  uint32_t start_line; /* its declaration, 0 when unknown */
};

struct bp_sym {
  const char *name;    /* demangled function name */
  const char *file;    /* source file, NULL when unknown */
  uint32_t line;       /* 0 when unknown; with inlines: the line of the
                        * call of the outermost of them */
  uint32_t start_line; /* line of the function's declaration, 0 unknown */
  /* The chain of calls inlined at the address, innermost first; each
   * one's file and line is where the address is inside it (for the
   * innermost) or where it calls the one inside it.  Only for modules
   * whose lines are looked up (bp_lines), since it needs their DWARF.
   * Valid until the next call into the symbolizer. */
  const struct bp_sym_inline *inlines;
  uint32_t ninlines;
  /* No symbol covers the address (stripped code): name is "fn_START", the
   * start of the function range the unwind tables (.eh_frame FDE) give,
   * so a stripped function's addresses add up to one entry. */
  bool unnamed;
};

/* Inlined calls kept per address at most (deeper ones are dropped from
 * the outside in: the innermost, where the time is, stay). */
#define BP_SYM_MAX_INLINES 64

bp_code bpi_symbols_new(struct bp_symbols **out,
                        const struct bp_symbols_opts *opts);
void bpi_symbols_free(struct bp_symbols *s);

/* One symbolizer can serve several recordings in turn (the invocations
 * of run --each and --repeat), so that the symbol tables of a binary
 * that did not change between them are read once.  Call this before
 * each recording but the first: each module's file is checked again
 * (device, inode, size, modification time) at its first use in the
 * recording and read again when it changed; so is kallsyms (and the list
 * of kernel modules); the JIT maps are read again (pids are reused); the
 * debuginfod counts and time budget start again. */
void bpi_symbols_begin_recording(struct bp_symbols *s);

/* The modules (and kallsyms) the recording so far used: their tables
 * read (opened from their files, new or changed) or reused from an
 * earlier recording. */
struct bp_symbols_tables {
  uint32_t read;
  uint32_t reused;
};
void bpi_symbols_tables(const struct bp_symbols *s,
                        struct bp_symbols_tables *out);

/* For a mapping of path at file offset pgoff: the amount to add to a file
 * offset to get the ELF virtual address (p_vaddr - p_offset of the PT_LOAD
 * segment that contains pgoff).  So for a runtime address a in a mapping
 * [start, end) with offset pgoff, vaddr = a - start + pgoff + *delta.
 * Returns BPE_IO / BPE_FORMAT when the file cannot be read as ELF. */
bp_code bpi_symbols_vaddr_delta(struct bp_symbols *s, const char *path,
                                uint64_t pgoff, int64_t *delta);

/* The GNU build id of path as lowercase hex into hex (at least 41 bytes);
 * "" when it has none. */
bp_code bpi_symbols_build_id(struct bp_symbols *s, const char *path,
                             char *hex, size_t len);

/* Resolve an ELF virtual address of a module.  build_id may be NULL or "";
 * when given and the file on disk has another build id, the lookup fails
 * (the file was replaced) rather than return a wrong name.
 * Returns true and fills out when a symbol covers vaddr. */
bool bpi_symbols_resolve(struct bp_symbols *s, const char *path,
                         const char *build_id, uint64_t vaddr,
                         struct bp_sym *out);

/* Resolve a kernel address from kallsyms. */
bool bpi_symbols_resolve_kernel(struct bp_symbols *s, uint64_t addr,
                                struct bp_sym *out);

/* Resolve an address in anonymous memory of process pid from
 * jit_map_dir/perf-PID.map ("START SIZE name" in hex, one per line). */
bool bpi_symbols_resolve_jit(struct bp_symbols *s, pid_t pid, uint64_t addr,
                             struct bp_sym *out);

/* What the debuginfod lookups of s did so far. */
void bpi_symbols_debuginfod_stats(const struct bp_symbols *s,
                                  struct bp_debuginfod_stats *out);

/* Demangle a C++ (_Z) or Rust (legacy _ZN...h<hash>E, v0 _R) name.
 * Returns a malloc'd string, or NULL when name is not mangled. */
char *bpi_symbols_demangle(const char *name);

#endif

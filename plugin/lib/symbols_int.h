/* symbols_int: what the parts of the symbolizer share: the module and
 * result caches (struct bp_symbols) and the lookups one part makes of
 * another.  symbols.c: modules, debug files, the cache of results and the
 * public entry points; symbols_dwarf.c: source lines and the calls inlined
 * at an address, from DWARF; symbols_cxxname.c: the C++ names of
 * functions DWARF gives without a linkage name; symbols_elf.c: names from
 * the ELF tables where the symbol table has none or several (PLT stubs,
 * .eh_frame function ranges, aliases); symbols_ranges.c: kallsyms and JIT
 * maps;
 * symbols_debuginfod.c: debug files from debuginfod servers.  Internal to
 * them. */
#ifndef BP_LIB_SYMBOLS_INT_H
#define BP_LIB_SYMBOLS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "hash.h"
#include "symbols.h"

/* GNU build ids are 20 bytes (sha1) or 16 (md5); ld accepts longer ones
 * given in hex, so leave room. */
#define BUILD_ID_MAX 64

/* The name the kernel gives the vDSO mapping in MMAP records. */
#define VDSO_PATH "[vdso]"

struct segment {   /* one PT_LOAD program header */
  uint64_t offset;
  uint64_t filesz;
  uint64_t vaddr;
  bool exec;
};

/* Which file a module was read from: a module is read again when its
 * path names another file, or the same file changed (a rebuilt binary). */
struct file_id {
  uint64_t dev, ino, size;
  int64_t mtime_s, mtime_ns;
  bool known;        /* false: stat failed (read again every recording) */
};

struct fn_start {
  uint64_t addr;
  uint32_t sym;   /* index in the module's symbol table */
  uint32_t size;  /* its st_size (at most UINT32_MAX); 0 for a function
                   * that starts inside an earlier one (nested): which
                   * holds an address there is libdwfl's call */
};

/* A module's symbol table, read entry by entry: straight from its ELF
 * section when libdwfl's table is exactly that section (libdwfl's own
 * reader checks each entry's section, about a third of a record of a
 * short program for libc's 10,000 symbols), else through libdwfl. */
struct symtab {
  Dwfl_Module *mod;
  Elf *elf;           /* NULL: read through libdwfl */
  Elf_Data *syms, *shndx;
  size_t strtab;      /* section index of the names */
  GElf_Addr bias;
};

struct module {
  Dwfl *dwfl;        /* one per module, so its ELF vaddrs are addresses */
  struct file_id file;
  uint32_t checked;  /* the recording (bp_symbols.recording) it was last
                      * checked in against its file */
  Dwfl_Module *mod;  /* NULL when the file could not be used */
  bp_code rc;        /* why mod is NULL */
  bool lines;        /* look up source files and lines (bp_lines) */
  char build_id[2 * BUILD_ID_MAX + 1];  /* lowercase hex, "" when none */
  struct segment *segs;
  size_t nsegs;
  /* where each function of the symbol table starts, sorted by address
   * then symbol index: aliases are neighbours */
  struct fn_start *fn_starts;
  size_t nfn_starts;
  bool fn_starts_read;
  struct symtab symtab;  /* opened with fn_starts, for their entries */
  uint64_t *fde_starts;  /* .eh_frame_hdr's table: each FDE's start */
  size_t nfdes;
  bool fdes_read;
};

struct result {   /* one resolved (module, vaddr) */
  uint32_t name;  /* id in strs; BP_NONE: no symbol covers the address */
  uint32_t file;  /* id in strs; BP_NONE: unknown */
  uint32_t line;
  uint32_t start_line;
  uint32_t inl_at;  /* its inlined calls: inls[inl_at .. inl_at + ninl) */
  uint32_t ninl;
  bool unnamed;     /* name is an unwind-table range's "fn_START" */
};

/* The function scopes of one compilation unit, read once: every
 * DW_TAG_subprogram and DW_TAG_inlined_subroutine with code, and each of
 * their address ranges sorted by start.  dwarf_getscopes() walks the CU
 * from its root for every address: seconds for a C++ program's few
 * thousand addresses in libstdc++-heavy units; this walks it once. */
struct scope_die {
  Dwarf_Die die;
  uint32_t parent;  /* enclosing scope_die; BP_NONE at the top */
  uint32_t depth;
  bool inlined;     /* DW_TAG_inlined_subroutine */
};

struct scope_range {
  uint64_t lo, hi;  /* [lo, hi), DWARF addresses (no bias) */
  uint32_t die;     /* index in dies */
  uint32_t depth;   /* of the die: ties on lo sort outer first */
};

struct cu_scopes {
  Dwarf_Die cu;
  struct scope_die *dies;
  size_t ndies, dies_cap;
  struct scope_range *ranges;
  size_t nranges, ranges_cap;
};

struct inl {      /* one inlined call of a result, ids in strs */
  uint32_t name;
  uint32_t file;  /* BP_NONE: unknown */
  uint32_t line;
  uint32_t start_line;
};

struct range {    /* a kallsyms or perf-PID.map symbol */
  uint64_t start;
  uint64_t end;   /* exclusive */
  const char *text; /* kallsyms: its name in kernel_text, interned into
                     * name at its first lookup; NULL then, and for JITs */
  uint32_t name;  /* id in strs */
  uint32_t seq;   /* line number in the file, for a stable sort */
  bool demangled; /* name already went through the demangler */
};

struct range_table {  /* sorted by start */
  struct range *r;
  size_t count, cap;
};

/* The debuginfod lookups (symbols_debuginfod.c); urls NULL: off. */
struct sym_debuginfod {
  char *urls;
  char *cache;                       /* NULL: libdebuginfod's default */
  long timeout_ms;                   /* all lookups together */
  struct debuginfod_client *client;  /* made at the first lookup */
  int64_t deadline_ms;               /* CLOCK_MONOTONIC, from then on */
  struct bp_debuginfod_stats stats;
};

struct bp_symbols {
  char *jit_map_dir;
  char *kallsyms;
  bool demangle;
  bool no_inline;
  enum bp_lines lines;
  uint64_t pagesize;

  struct bp_strtab strs;    /* names and source files handed out */
  struct bp_strtab paths;   /* module paths */
  uint32_t *mod_of;         /* path id -> index in mods of its module now */
  size_t mod_of_cap;
  struct module *mods;      /* every module read, replaced ones too: the
                             * caches below are keyed by index in mods */
  size_t nmods, mods_cap;
  uint32_t recording;       /* bpi_symbols_begin_recording()s so far */
  struct bp_symbols_tables tables;  /* this recording's */

  struct result *results;
  size_t nresults, results_cap;
  struct inl *inls;         /* the results' inlined calls */
  size_t ninls, inls_cap;
  struct bp_sym_inline out_inl[BP_SYM_MAX_INLINES]; /* handed out */
  struct cu_scopes *cus;    /* compilation units' scopes, read once */
  size_t ncus, cus_cap;
  struct bp_map cu_of;      /* (module id, CU DIE offset) -> index in cus */
  struct bp_map alias_of;   /* (module id, address) -> the name (in strs)
                             * people write among the functions there */
  struct bp_map result_of;  /* (module id, vaddr) -> index in results */
  struct bp_map start_of;   /* (module id, symbol start) -> start line */
  struct bp_map cxx_name_of; /* (module id, DIE offset) -> a C++ name
                              * built from DWARF (symbols_cxxname.c) */

  bool kernel_loaded;       /* kallsyms read (or found missing) */
  struct range_table kernel;
  char *kernel_text;        /* kallsyms as read, its names cut in place */
  struct file_id kernel_file;  /* kallsyms's, when it was read */
  uint64_t kernel_modules;  /* a hash of /proc/modules then */
  uint32_t kernel_checked;  /* the recording it was last checked in */

  struct range_table *jits;
  size_t njits, jits_cap;
  struct bp_map jit_of;     /* (pid, 0) -> index in jits */

  struct sym_debuginfod dbg;
};

/* arr with room for need elements (doubling, so appends are O(1)), or
 * NULL when out of memory, arr then unchanged. */
static inline void *grow_array(void *arr, size_t *cap, size_t need,
                               size_t size)
{
  if(need <= *cap)
    return arr;
  size_t ncap = *cap ? *cap : 16;
  while(ncap < need)
    ncap *= 2;
  void *p = realloc(arr, ncap * size);
  if(p)
    *cap = ncap;
  return p;
}

/* symbols.c */
uint32_t bpi_sym_intern_name(struct bp_symbols *s, const char *name);
/* Which file path names now; known false when it cannot be told. */
struct file_id bpi_sym_file_id(const char *path);
/* Both known and the same file, unchanged. */
bool bpi_sym_same_file(const struct file_id *a, const struct file_id *b);

/* symbols_ranges.c */
/* kallsyms forgotten: read again at the next kernel lookup. */
void bpi_sym_forget_kernel(struct bp_symbols *s);

/* symbols_dwarf.c */
uint32_t bpi_sym_start_line(struct bp_symbols *s, uint32_t id,
                            Dwfl_Module *mod, uint64_t start);
bool bpi_sym_inline_chain(struct bp_symbols *s, uint32_t id,
                          Dwfl_Module *mod, uint64_t vaddr,
                          struct result *r);

/* The source line libdwfl has for vaddr, NULL when none; only inside
 * the ranges of the compilation unit it takes vaddr to be in. */
Dwfl_Line *bpi_sym_line_at(Dwfl_Module *mod, uint64_t vaddr);

/* symbols_cxxname.c */
/* The qualified C++ name (with its parameters, as the demangler writes
 * them) of the function of die, a DIE of cu in module id that has no
 * linkage name; BP_NONE when cu is no C++ or the name cannot be built. */
uint32_t bpi_sym_cxx_name(struct bp_symbols *s, uint32_t id, Dwarf_Die *cu,
                          Dwarf_Die *die);

/* symbols_debuginfod.c */
bp_code bpi_sym_debuginfod_init(struct sym_debuginfod *d,
                                const struct bp_symbols_opts *o);
void bpi_sym_debuginfod_cleanup(struct sym_debuginfod *d);
/* A new recording: the counts start again, and so does the time budget
 * (a client made earlier is kept). */
void bpi_sym_debuginfod_restart(struct sym_debuginfod *d);
/* The debug file of the module with this build id from the servers (or
 * libdebuginfod's cache): its descriptor, its path (malloc'd) in *path;
 * -1 when off, not found, or stopped (stats say why). */
int bpi_sym_debuginfod_find(struct sym_debuginfod *d,
                            const unsigned char *build_id, int len,
                            char **path);

/* symbols_elf.c */
bool bpi_sym_plt_lookup(struct bp_symbols *s, Dwfl_Module *mod,
                        uint64_t vaddr, struct result *r);
bool bpi_sym_fde_lookup(struct bp_symbols *s, struct module *m,
                        uint64_t vaddr, struct result *r);
const char *bpi_sym_alias_name(struct bp_symbols *s, uint32_t id,
                               uint64_t start);
/* The function of module id whose range holds vaddr (its name as the
 * symbol table has it, its start in *start), by binary search; NULL when
 * that takes libdwfl's full lookup. */
const char *bpi_sym_function_at(struct bp_symbols *s, uint32_t id,
                                uint64_t vaddr, uint64_t *start);
/* fs, given in symbol index order, sorted by address then index. */
void bpi_sym_sort_fn_starts(struct fn_start *fs, size_t n);

#endif

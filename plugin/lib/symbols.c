#include "bp_setup.h"
#include "symbols.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <libiberty/demangle.h>

#include "buf.h"
#include "hash.h"

/* GNU build ids are 20 bytes (sha1) or 16 (md5); ld accepts longer ones
 * given in hex, so leave room. */
#define BUILD_ID_MAX 64

/* kallsyms has no sizes: the last symbol is taken to end one page on,
 * as perf does. */
#define KSYM_LAST_SIZE 4096

/* The name the kernel gives the vDSO mapping in MMAP records. */
#define VDSO_PATH "[vdso]"

struct segment {   /* one PT_LOAD program header */
  uint64_t offset;
  uint64_t filesz;
  uint64_t vaddr;
  bool exec;
};

struct module {
  Dwfl *dwfl;        /* one per module, so its ELF vaddrs are addresses */
  Dwfl_Module *mod;  /* NULL when the file could not be used */
  bp_code rc;        /* why mod is NULL */
  bool lines;        /* look up source files and lines (bp_lines) */
  char build_id[2 * BUILD_ID_MAX + 1];  /* lowercase hex, "" when none */
  struct segment *segs;
  size_t nsegs;
  bool aliases_read;     /* best names of shared addresses (alias_of) */
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
  uint32_t name;  /* id in strs */
  uint32_t seq;   /* line number in the file, for a stable sort */
  bool demangled; /* name already went through the demangler */
};

struct range_table {  /* sorted by start */
  struct range *r;
  size_t count, cap;
};

struct bp_symbols {
  char *jit_map_dir;
  char *kallsyms;
  bool demangle;
  bool no_inline;
  enum bp_lines lines;
  uint64_t pagesize;

  struct bp_strtab strs;    /* names and source files handed out */
  struct bp_strtab paths;   /* module path; its id indexes mods */
  struct module *mods;
  size_t mods_cap;

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

  bool kernel_loaded;       /* kallsyms read (or found missing) */
  struct range_table kernel;

  struct range_table *jits;
  size_t njits, jits_cap;
  struct bp_map jit_of;     /* (pid, 0) -> index in jits */
};

/* Whether the ELF file at path carries the build id bits. */
static bool has_build_id(const char *path, const unsigned char *bits,
                         int len)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if(fd < 0)
    return false;
  Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
  const void *id = NULL;
  ssize_t n = elf ? dwelf_elf_gnu_build_id(elf, &id) : -1;
  bool same = n == len && id && !memcmp(id, bits, (size_t)len);
  elf_end(elf);
  close(fd);
  return same;
}

/* A module's separate debug file, from local files only: by build id under
 * /usr/lib/debug/.build-id, else by its .gnu_debuglink name next to it, in
 * its .debug folder or under /usr/lib/debug, when that file has the
 * module's build id.  dwfl_standard_find_debuginfo() would ask debuginfod
 * last: even with no server configured, libdw (0.188) then loads
 * libdebuginfod and its libcurl, tens of milliseconds for every profile
 * of a program without debug files; a runner is no place to download
 * debug info anyway. */
static int find_local_debuginfo(Dwfl_Module *mod, void **userdata,
                                const char *modname, GElf_Addr base,
                                const char *file_name,
                                const char *debuglink_file,
                                GElf_Word debuglink_crc,
                                char **debuginfo_file_name)
{
  int fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base,
                                        file_name, debuglink_file,
                                        debuglink_crc, debuginfo_file_name);
  if(fd >= 0 || !debuglink_file || !file_name || file_name[0] != '/')
    return fd;
  const unsigned char *bits;
  GElf_Addr vaddr;
  int len = dwfl_module_build_id(mod, &bits, &vaddr);
  if(len <= 0)
    return -1;  /* nothing would say a debuglink file is this module's */
  size_t dir = (size_t)(strrchr(file_name, '/') - file_name);
  static const char *const forms[] = {"%.*s/%s", "%.*s/.debug/%s",
                                      "/usr/lib/debug%.*s/%s"};
  for(size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
    char path[4096];
    int n = snprintf(path, sizeof(path), forms[i], (int)dir, file_name,
                     debuglink_file);
    if(n < 0 || (size_t)n >= sizeof(path) || !strcmp(path, file_name) ||
       !has_build_id(path, bits, len))
      continue;
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if(fd >= 0) {
      *debuginfo_file_name = strdup(path);
      return fd;
    }
  }
  return -1;
}

/* Debug files come from local files only (find_local_debuginfo). */
static const Dwfl_Callbacks dwfl_callbacks = {
  .find_elf = dwfl_build_id_find_elf,
  .find_debuginfo = find_local_debuginfo,
  .section_address = dwfl_offline_section_address,
  .debuginfo_path = NULL,
};

/* arr with room for need elements (doubling, so appends are O(1)), or
 * NULL when out of memory, arr then unchanged. */
static void *grow_array(void *arr, size_t *cap, size_t need, size_t size)
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

bp_code bpi_symbols_new(struct bp_symbols **out,
                        const struct bp_symbols_opts *opts)
{
  static const struct bp_symbols_opts defaults = { .demangle = true };
  struct bp_symbols *s = calloc(1, sizeof(*s));
  *out = NULL;
  if(!s)
    return BPE_NOMEM;
  if(!opts)
    opts = &defaults;
  s->jit_map_dir = strdup(opts->jit_map_dir ? opts->jit_map_dir : "/tmp");
  s->kallsyms = strdup(opts->kallsyms ? opts->kallsyms : "/proc/kallsyms");
  s->demangle = opts->demangle;
  s->no_inline = opts->no_inline;
  s->lines = opts->lines;
  long ps = sysconf(_SC_PAGESIZE);
  s->pagesize = ps > 0 ? (uint64_t)ps : 4096;
  bpi_strtab_init(&s->strs);
  bpi_strtab_init(&s->paths);
  bpi_map_init(&s->result_of);
  bpi_map_init(&s->start_of);
  bpi_map_init(&s->jit_of);
  bpi_map_init(&s->cu_of);
  bpi_map_init(&s->alias_of);
  if(!s->jit_map_dir || !s->kallsyms) {
    bpi_symbols_free(s);
    return BPE_NOMEM;
  }
  *out = s;
  return BP_OK;
}

void bpi_symbols_free(struct bp_symbols *s)
{
  if(!s)
    return;
  for(size_t i = 0; i < s->paths.count; i++) {
    if(s->mods[i].dwfl)
      dwfl_end(s->mods[i].dwfl);
    free(s->mods[i].segs);
    free(s->mods[i].fde_starts);
  }
  free(s->mods);
  for(size_t i = 0; i < s->njits; i++)
    free(s->jits[i].r);
  free(s->jits);
  free(s->kernel.r);
  free(s->results);
  free(s->inls);
  for(size_t i = 0; i < s->ncus; i++) {
    free(s->cus[i].dies);
    free(s->cus[i].ranges);
  }
  free(s->cus);
  bpi_map_cleanup(&s->cu_of);
  bpi_map_cleanup(&s->alias_of);
  bpi_map_cleanup(&s->jit_of);
  bpi_map_cleanup(&s->start_of);
  bpi_map_cleanup(&s->result_of);
  bpi_strtab_cleanup(&s->paths);
  bpi_strtab_cleanup(&s->strs);
  free(s->kallsyms);
  free(s->jit_map_dir);
  free(s);
}

char *bpi_symbols_demangle(const char *name)
{
  /* only _Z (C++, Rust legacy) and _R (Rust v0): plain C names must come
   * back NULL, and the default (auto) style tries Rust before C++ so the
   * legacy ::h<hash> suffix is dropped */
  if(!name || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
    return NULL;
  return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
}

/* ---------------------------------------------------------------- modules */

static void read_build_id(struct module *m)
{
  const unsigned char *bits;
  GElf_Addr vaddr;
  int len = dwfl_module_build_id(m->mod, &bits, &vaddr);
  if(len > 0 && len <= BUILD_ID_MAX)
    bpi_hex_encode(bits, (size_t)len, m->build_id);
}

/* Keep the PT_LOAD headers: vaddr_delta needs them for every mapping. */
static bp_code read_segments(struct module *m)
{
  GElf_Addr bias;
  Elf *elf = dwfl_module_getelf(m->mod, &bias);
  size_t phnum;
  if(!elf || elf_getphdrnum(elf, &phnum) != 0)
    return BPE_FORMAT;
  m->segs = calloc(phnum ? phnum : 1, sizeof(*m->segs));
  if(!m->segs)
    return BPE_NOMEM;
  for(size_t i = 0; i < phnum; i++) {
    GElf_Phdr mem, *ph = gelf_getphdr(elf, (int)i, &mem);
    if(!ph)
      return BPE_FORMAT;
    if(ph->p_type != PT_LOAD)
      continue;
    struct segment *seg = &m->segs[m->nsegs++];
    seg->offset = ph->p_offset;
    seg->filesz = ph->p_filesz;
    seg->vaddr = ph->p_vaddr;
    seg->exec = (ph->p_flags & PF_X) != 0;
  }
  return BP_OK;
}

/* The kernel maps the same vDSO into every process of an architecture, so
 * the profiled processes' "[vdso]" is read from our own copy: a memfd with
 * the bytes of our mapping, whose size /proc/self/maps gives.  -1 when
 * that fails (the frames then stay unresolved). */
static int vdso_fd(void)
{
  unsigned long base = getauxval(AT_SYSINFO_EHDR);
  FILE *maps = fopen("/proc/self/maps", "r");
  char line[512];
  uint64_t start = 0, end = 0;
  if(!base || !maps) {
    if(maps)
      fclose(maps);
    return -1;
  }
  while(fgets(line, sizeof(line), maps))
    if(strstr(line, "[vdso]") &&
       sscanf(line, "%" SCNx64 "-%" SCNx64, &start, &end) == 2)
      break;
  fclose(maps);
  if(start != base || end <= start)
    return -1;
  int fd = memfd_create("vdso", MFD_CLOEXEC);
  if(fd < 0)
    return -1;
  size_t len = (size_t)(end - start);
  if(write(fd, (const void *)(uintptr_t)start, len) != (ssize_t)len ||
     lseek(fd, 0, SEEK_SET) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

/* Open path with libdwfl at base 0 so that module addresses are the ELF
 * virtual addresses (add_p_vaddr: an ET_DYN whose first PT_LOAD is not at
 * 0 keeps a bias of 0 too).  Failure is remembered in m->rc. */
static void module_open(struct module *m, const char *path)
{
  m->dwfl = dwfl_begin(&dwfl_callbacks);
  if(!m->dwfl) {
    m->rc = BPE_NOMEM;
    return;
  }
  int fd = strcmp(path, VDSO_PATH) ? -1 : vdso_fd();
  dwfl_report_begin(m->dwfl);
  /* with fd >= 0, libdwfl reads from it and owns it */
  m->mod = dwfl_report_elf(m->dwfl, path, path, fd, 0, true);
  dwfl_report_end(m->dwfl, NULL, NULL);
  if(!m->mod) {
    /* libdwfl's error codes are private: tell "cannot read" from "not
     * ELF" by asking the file system */
    m->rc = access(path, R_OK) ? BPE_IO : BPE_FORMAT;
    return;
  }
  read_build_id(m);
  m->rc = read_segments(m);
  if(m->rc)
    m->mod = NULL;
}

/* A library the system installed (its lines are the distribution's
 * business, not the benchmark's): under /lib, /lib64, /usr/lib or
 * /usr/lib64, but not /usr/local. */
static bool system_library(const char *path)
{
  static const char *const dirs[] = {"/lib/", "/lib64/", "/usr/lib/",
                                     "/usr/lib64/", "/usr/libexec/"};
  for(size_t i = 0; i < BP_ARRAY_LEN(dirs); i++)
    if(!strncmp(path, dirs[i], strlen(dirs[i])))
      return true;
  return false;
}

static bool wants_lines(enum bp_lines policy, const char *path)
{
  if(policy == BP_LINES_ALL)
    return true;
  if(policy == BP_LINES_NONE)
    return false;
  return !system_library(path) && strcmp(path, VDSO_PATH);
}

/* The module of path, opened on first use; *id is its index.  NULL only
 * when out of memory; a module that failed to open has mod == NULL. */
static struct module *module_get(struct bp_symbols *s, const char *path,
                                 uint32_t *id)
{
  uint32_t i = bpi_strtab_find(&s->paths, path);
  if(i == BP_NONE) {
    struct module *mods = grow_array(s->mods, &s->mods_cap,
                                     s->paths.count + 1, sizeof(*mods));
    if(!mods)
      return NULL;
    s->mods = mods;
    i = bpi_strtab_intern(&s->paths, path);
    if(i == BP_NONE)
      return NULL;
    memset(&s->mods[i], 0, sizeof(s->mods[i]));
    s->mods[i].lines = wants_lines(s->lines, path);
    module_open(&s->mods[i], path);
  }
  *id = i;
  return &s->mods[i];
}

/* The PT_LOAD that a mapping at file offset pgoff comes from.  The mapping
 * starts at the page-aligned offset of its segment, but two segments can
 * share a page (old layouts without -z separate-code), so rank: aligned
 * start equals pgoff, then executable (samples are code), then file
 * order. */
static const struct segment *find_segment(const struct module *m,
                                          uint64_t pgoff, uint64_t pagesize)
{
  const struct segment *best = NULL;
  int best_rank = -1;
  for(size_t i = 0; i < m->nsegs; i++) {
    const struct segment *seg = &m->segs[i];
    uint64_t lo = seg->offset & ~(pagesize - 1);
    uint64_t hi = seg->offset + seg->filesz;
    if(pgoff < lo || (pgoff >= hi && pgoff != lo))
      continue;
    int rank = (pgoff == lo ? 2 : 0) + (seg->exec ? 1 : 0);
    if(rank > best_rank) {
      best = seg;
      best_rank = rank;
    }
  }
  return best;
}

bp_code bpi_symbols_vaddr_delta(struct bp_symbols *s, const char *path,
                                uint64_t pgoff, int64_t *delta)
{
  uint32_t id;
  struct module *m = module_get(s, path, &id);
  if(!m)
    return BPE_NOMEM;
  if(!m->mod)
    return m->rc;
  const struct segment *seg = find_segment(m, pgoff, s->pagesize);
  if(!seg)
    return BPE_FORMAT;
  *delta = (int64_t)(seg->vaddr - seg->offset);
  return BP_OK;
}

bp_code bpi_symbols_build_id(struct bp_symbols *s, const char *path,
                             char *hex, size_t len)
{
  uint32_t id;
  struct module *m = module_get(s, path, &id);
  if(!m)
    return BPE_NOMEM;
  if(!m->mod)
    return m->rc;
  size_t n = strlen(m->build_id);
  if(n >= len)
    return BPE_INVAL;
  memcpy(hex, m->build_id, n + 1);
  return BP_OK;
}

/* The kernel may report a short build id padded with zeros to 20 bytes:
 * equal, or ours followed by zeros only. */
static bool build_id_matches(const char *ours, const char *given)
{
  size_t n = strlen(ours);
  if(!n || strncasecmp(ours, given, n) != 0)
    return false;
  for(given += n; *given; given++)
    if(*given != '0')
      return false;
  return true;
}

/* Line where the function starting at start is declared: DW_AT_decl_line
 * of its DW_TAG_subprogram, else the line of its first instruction. */
static uint32_t decl_line(Dwfl_Module *mod, uint64_t start)
{
  Dwarf_Addr bias;
  Dwarf_Die *cu = dwfl_module_addrdie(mod, start, &bias);
  int line = 0;
  if(cu) {
    Dwarf_Die *scopes = NULL;
    int n = dwarf_getscopes(cu, start - bias, &scopes);
    for(int i = 0; i < n; i++) {
      if(dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
        continue;
      if(dwarf_decl_line(&scopes[i], &line) != 0)
        line = 0;
      break;
    }
    free(scopes);
  }
  if(line <= 0) {
    Dwfl_Line *l = dwfl_module_getsrc(mod, start);
    if(!l || !dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL))
      line = 0;
  }
  return line > 0 ? (uint32_t)line : 0;
}

/* decl_line, once per function of a module: addresses share functions. */
static uint32_t start_line(struct bp_symbols *s, uint32_t id,
                           Dwfl_Module *mod, uint64_t start)
{
  uint32_t line = bpi_map_get(&s->start_of, id, start);
  if(line != BP_NONE)
    return line;
  line = decl_line(mod, start);
  /* failing to cache only costs a second lookup */
  (void)bpi_map_put(&s->start_of, id, start, line);
  return line;
}

/* Intern name, demangled when asked to; BP_NONE when out of memory.
 * A symbol version ("clock_gettime@@GLIBC_2.17" in .symtab) is dropped:
 * people know the function by its name, and one function should not show
 * up under two names. */
static uint32_t intern_name(struct bp_symbols *s, const char *name)
{
  char *plain = NULL;
  const char *at = strchr(name, '@');
  if(at && at != name && (plain = strndup(name, (size_t)(at - name))))
    name = plain;
  char *dm = s->demangle ? bpi_symbols_demangle(name) : NULL;
  uint32_t id = bpi_strtab_intern(&s->strs, dm ? dm : name);
  free(dm);
  free(plain);
  return id;
}

/* The section called name, its header in *sh; NULL when there is none. */
static Elf_Scn *find_section(Elf *elf, size_t shstrndx, const char *name,
                             GElf_Shdr *sh)
{
  for(Elf_Scn *scn = elf_nextscn(elf, NULL); scn;
      scn = elf_nextscn(elf, scn)) {
    const char *n;
    if(gelf_getshdr(scn, sh) && (n = elf_strptr(elf, shstrndx, sh->sh_name)) &&
       !strcmp(n, name))
      return scn;
  }
  return NULL;
}

static bool in_section(const GElf_Shdr *sh, uint64_t vaddr)
{
  return vaddr >= sh->sh_addr && vaddr - sh->sh_addr < sh->sh_size;
}

/* The dynamic symbol named by the relocation of GOT slot got, searched in
 * .rela.plt (lazy binding) and .rela.dyn (-z now, .plt.got). */
static const char *got_slot_symbol(Elf *elf, size_t shstrndx, uint64_t got)
{
  static const char *const tables[] = {".rela.plt", ".rela.dyn"};
  for(size_t t = 0; t < BP_ARRAY_LEN(tables); t++) {
    GElf_Shdr relash, dynsh;
    Elf_Scn *rela = find_section(elf, shstrndx, tables[t], &relash);
    Elf_Scn *dyn = rela ? elf_getscn(elf, relash.sh_link) : NULL;
    Elf_Data *rd = rela ? elf_getdata(rela, NULL) : NULL;
    Elf_Data *dd = dyn ? elf_getdata(dyn, NULL) : NULL;
    if(!rd || !dd || !gelf_getshdr(dyn, &dynsh) || !relash.sh_entsize)
      continue;
    size_t n = relash.sh_size / relash.sh_entsize;
    for(size_t i = 0; i < n; i++) {
      GElf_Rela rel;
      GElf_Sym sym;
      if(gelf_getrela(rd, (int)i, &rel) && rel.r_offset == got &&
         GELF_R_SYM(rel.r_info) &&
         gelf_getsym(dd, (int)GELF_R_SYM(rel.r_info), &sym))
        return elf_strptr(elf, dynsh.sh_link, sym.st_name);
    }
  }
  return NULL;
}

/* The name of the function the PLT stub at vaddr jumps to; NULL when vaddr
 * is in no stub or its target cannot be named.  A stub is a handful of
 * instructions around one indirect jump through its GOT slot
 * (x86-64: "ff 25 disp32", jmp *disp(%rip), maybe after endbr64 and a bnd
 * prefix); the slot's relocation names the function.  This covers .plt,
 * .plt.sec (IBT) and .plt.got (-z now). */
static const char *plt_target(Elf *elf, uint64_t vaddr)
{
  static const char *const sections[] = {".plt.sec", ".plt", ".plt.got"};
  size_t shstrndx;
  if(elf_getshdrstrndx(elf, &shstrndx))
    return NULL;
  for(size_t i = 0; i < BP_ARRAY_LEN(sections); i++) {
    GElf_Shdr sh;
    Elf_Scn *scn = find_section(elf, shstrndx, sections[i], &sh);
    Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
    if(!d || !d->d_buf || !in_section(&sh, vaddr))
      continue;
    uint64_t entsize = sh.sh_entsize >= 8 ? sh.sh_entsize : 16;
    uint64_t entry = (vaddr - sh.sh_addr) / entsize * entsize;
    const unsigned char *code = d->d_buf;
    for(uint64_t at = entry; at + 6 <= entry + entsize && at + 6 <= d->d_size;
        at++) {
      if(code[at] != 0xff || code[at + 1] != 0x25)
        continue;
      int32_t disp;
      memcpy(&disp, code + at + 2, sizeof(disp));
      uint64_t got = sh.sh_addr + at + 6 + (uint64_t)(int64_t)disp;
      return got_slot_symbol(elf, shstrndx, got);
    }
    return NULL;
  }
  return NULL;
}

/* Samples in a PLT stub fall in no symbol: name them "callee@plt", as perf
 * and objdump do, so the time is not left as a bare address.  false only
 * when out of memory. */
static bool plt_lookup(struct bp_symbols *s, Dwfl_Module *mod,
                       uint64_t vaddr, struct result *r)
{
  GElf_Addr bias;
  Elf *elf = dwfl_module_getelf(mod, &bias);
  const char *target = elf ? plt_target(elf, vaddr) : NULL;
  if(!target || !*target)
    return true;
  char *dm = s->demangle ? bpi_symbols_demangle(target) : NULL;
  char name[512];
  snprintf(name, sizeof(name), "%s@plt", dm ? dm : target);
  free(dm);
  r->name = bpi_strtab_intern(&s->strs, name);
  return r->name != BP_NONE;
}

/* The name of a DW_TAG_inlined_subroutine (from its abstract origin):
 * the linkage name demangled, so it reads like the symbol table's names,
 * else DW_AT_name; BP_NONE when it has neither or memory ran out. */
static uint32_t inlined_name(struct bp_symbols *s, Dwarf_Die *die)
{
  Dwarf_Attribute attr;
  const char *name = NULL;
  if(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
     dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
    name = dwarf_formstring(&attr);
  if(!name || !*name)
    name = dwarf_diename(die);
  if(!name || !*name)
    return BP_NONE;
  return intern_name(s, name);
}

/* The source file numbered idx in cu's line table header; BP_NONE. */
static uint32_t cu_file(struct bp_symbols *s, Dwarf_Die *cu, Dwarf_Word idx)
{
  Dwarf_Files *files;
  size_t nfiles;
  const char *name;
  if(dwarf_getsrcfiles(cu, &files, &nfiles) != 0 || idx >= nfiles ||
     !(name = dwarf_filesrc(files, idx, NULL, NULL)) || !*name)
    return BP_NONE;
  return bpi_strtab_intern(&s->strs, name);
}

static uint32_t die_udata(Dwarf_Die *die, unsigned int at)
{
  Dwarf_Attribute attr;
  Dwarf_Word v;
  if(!dwarf_attr(die, at, &attr) || dwarf_formudata(&attr, &v) != 0 ||
     v > UINT32_MAX)
    return 0;
  return (uint32_t)v;
}

/* Add die (a function scope under parent) and its ranges to c.  false
 * only when out of memory. */
static bool scopes_add(struct cu_scopes *c, Dwarf_Die *die, uint32_t parent,
                       bool inlined, uint32_t *id)
{
  struct scope_die *dies = grow_array(c->dies, &c->dies_cap, c->ndies + 1,
                                      sizeof(*dies));
  if(!dies || c->ndies >= BP_NONE)
    return false;
  c->dies = dies;
  *id = (uint32_t)c->ndies;
  uint32_t depth = parent == BP_NONE ? 0 : c->dies[parent].depth + 1;
  c->dies[c->ndies++] = (struct scope_die){
    .die = *die, .parent = parent, .depth = depth, .inlined = inlined,
  };
  Dwarf_Addr base, lo, hi;
  ptrdiff_t off = 0;
  while((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
    if(hi <= lo)
      continue;
    struct scope_range *r = grow_array(c->ranges, &c->ranges_cap,
                                       c->nranges + 1, sizeof(*r));
    if(!r)
      return false;
    c->ranges = r;
    c->ranges[c->nranges++] = (struct scope_range){
      .lo = lo, .hi = hi, .die = *id, .depth = depth,
    };
  }
  return true;
}

/* The function scopes under die, parent the innermost one around it.
 * Only what can hold code is entered: no types, variables or parameters.
 * false only when out of memory. */
static bool scopes_walk(struct cu_scopes *c, Dwarf_Die *die, uint32_t parent,
                        unsigned level)
{
  Dwarf_Die child;
  if(level > 256 || dwarf_child(die, &child) != 0)
    return true;
  do {
    int tag = dwarf_tag(&child);
    uint32_t id;
    switch(tag) {
    case DW_TAG_subprogram:
    case DW_TAG_inlined_subroutine:
      if(!scopes_add(c, &child, parent, tag == DW_TAG_inlined_subroutine,
                     &id) ||
         !scopes_walk(c, &child, id, level + 1))
        return false;
      break;
    case DW_TAG_namespace:
    case DW_TAG_lexical_block:
    case DW_TAG_try_block:
    case DW_TAG_catch_block:
      if(!scopes_walk(c, &child, parent, level + 1))
        return false;
      break;
    default:
      break;
    }
  } while(dwarf_siblingof(&child, &child) == 0);
  return true;
}

static int by_lo_outer_first(const void *a, const void *b)
{
  const struct scope_range *x = a, *y = b;
  if(x->lo != y->lo)
    return x->lo < y->lo ? -1 : 1;
  return (x->depth > y->depth) - (x->depth < y->depth);
}

/* The scopes of cu (of module id), read the first time; NULL when out of
 * memory. */
static struct cu_scopes *cu_scopes_get(struct bp_symbols *s, uint32_t id,
                                       Dwarf_Die *cu)
{
  Dwarf_Off off = dwarf_dieoffset(cu);
  uint32_t i = bpi_map_get(&s->cu_of, id, off);
  if(i != BP_NONE)
    return &s->cus[i];
  struct cu_scopes *cus = grow_array(s->cus, &s->cus_cap, s->ncus + 1,
                                     sizeof(*cus));
  if(!cus)
    return NULL;
  s->cus = cus;
  struct cu_scopes *c = &s->cus[s->ncus];
  *c = (struct cu_scopes){.cu = *cu};
  if(!scopes_walk(c, cu, BP_NONE, 0) ||
     bpi_map_put(&s->cu_of, id, off, (uint32_t)s->ncus)) {
    free(c->dies);
    free(c->ranges);
    return NULL;
  }
  if(c->nranges)
    qsort(c->ranges, c->nranges, sizeof(*c->ranges), by_lo_outer_first);
  s->ncus++;
  return c;
}

/* The innermost function scope of c around addr; BP_NONE when none.
 * Scopes nest, so walking back from the last range starting at or before
 * addr, every range inside the outermost one around addr comes before
 * it: the walk stops there. */
static uint32_t innermost_scope(const struct cu_scopes *c, uint64_t addr)
{
  size_t lo = 0, hi = c->nranges;
  while(lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if(c->ranges[mid].lo <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  uint32_t best = BP_NONE, best_depth = 0;
  while(lo-- > 0) {
    const struct scope_range *r = &c->ranges[lo];
    if(addr >= r->hi)
      continue;
    if(best == BP_NONE || r->depth > best_depth) {
      best = r->die;
      best_depth = r->depth;
    }
    if(r->depth == 0)
      break;
  }
  return best;
}

/* The calls inlined at vaddr, innermost first, appended to s->inls: the
 * DW_TAG_inlined_subroutine scopes around vaddr up to its
 * DW_TAG_subprogram.  Each takes the file and line where the one inside
 * it was called (DW_AT_call_file, DW_AT_call_line); the innermost keeps
 * r's (the address's own line) and r then takes the call of the
 * outermost.  false only when out of memory. */
static bool inline_chain(struct bp_symbols *s, uint32_t id, Dwfl_Module *mod,
                         uint64_t vaddr, struct result *r)
{
  Dwarf_Addr bias;
  Dwarf_Die *cu = dwfl_module_addrdie(mod, vaddr, &bias);
  struct cu_scopes *c = cu ? cu_scopes_get(s, id, cu) : NULL;
  if(!cu)
    return true;
  if(!c)
    return false;
  r->inl_at = (uint32_t)s->ninls;
  uint32_t file = r->file, line = r->line;
  for(uint32_t d = innermost_scope(c, vaddr - bias);
      d != BP_NONE && c->dies[d].inlined && r->ninl < BP_SYM_MAX_INLINES;
      d = c->dies[d].parent) {
    Dwarf_Die *die = &c->dies[d].die;
    struct inl *inls = grow_array(s->inls, &s->inls_cap, s->ninls + 1,
                                  sizeof(*inls));
    if(!inls)
      return false;
    s->inls = inls;
    int decl = 0;
    struct inl *in = &s->inls[s->ninls];
    in->name = inlined_name(s, die);
    if(in->name == BP_NONE)
      break;  /* a call without a name: what is outside it stays whole */
    in->file = file;
    in->line = line;
    in->start_line = dwarf_decl_line(die, &decl) == 0 && decl > 0 ?
                     (uint32_t)decl : 0;
    s->ninls++;
    r->ninl++;
    /* what is outside this call is at its call site */
    file = cu_file(s, &c->cu, die_udata(die, DW_AT_call_file));
    line = die_udata(die, DW_AT_call_line);
  }
  if(r->ninl) {
    r->file = file;
    r->line = line;
  }
  return true;
}

/* .eh_frame_hdr's binary search table: the start of every FDE, sorted
 * (the linker writes it so for the unwinder).  Only the encoding every
 * x86-64 and arm64 linker uses (a 4-byte eh_frame pointer, a udata4 count
 * and datarel sdata4 pairs); none read otherwise. */
static void read_fde_starts(struct module *m)
{
  GElf_Addr bias;
  GElf_Shdr sh;
  size_t shstrndx;
  Elf *elf = dwfl_module_getelf(m->mod, &bias);
  m->fdes_read = true;
  if(!elf || elf_getshdrstrndx(elf, &shstrndx))
    return;
  Elf_Scn *scn = find_section(elf, shstrndx, ".eh_frame_hdr", &sh);
  Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
  const unsigned char *h = d ? d->d_buf : NULL;
  if(!h || d->d_size < 12 || h[0] != 1 || (h[1] & 0x0f) != 0x0b ||
     h[2] != 0x03 || h[3] != 0x3b)
    return;
  uint32_t count;
  memcpy(&count, h + 8, sizeof(count));
  if(count > (d->d_size - 12) / 8 || !count)
    return;
  m->fde_starts = malloc(count * sizeof(*m->fde_starts));
  if(!m->fde_starts)
    return;
  for(uint32_t i = 0; i < count; i++) {
    int32_t loc;
    memcpy(&loc, h + 12 + (size_t)i * 8, sizeof(loc));
    m->fde_starts[i] = sh.sh_addr + (uint64_t)(int64_t)loc;
  }
  m->nfdes = count;
}

/* The start of the FDE that covers vaddr (one covers it: the caller
 * checked), from the table; false without one. */
static bool fde_start(struct module *m, uint64_t vaddr, uint64_t *start)
{
  if(!m->fdes_read)
    read_fde_starts(m);
  size_t lo = 0, hi = m->nfdes;
  while(lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if(m->fde_starts[mid] <= vaddr)
      lo = mid + 1;
    else
      hi = mid;
  }
  if(!lo)
    return false;
  *start = m->fde_starts[lo - 1];
  return true;
}

/* No symbol covers vaddr: name it after the function the unwind tables
 * (.eh_frame) say it is in, "fn_START" (the FDE's first address), so all
 * of a stripped function's addresses are one function.  Leaves r->name
 * BP_NONE without one; false only when out of memory. */
static bool range_lookup_fde(struct bp_symbols *s, struct module *m,
                             uint64_t vaddr, struct result *r)
{
  Dwarf_Addr bias;
  Dwarf_CFI *cfi = dwfl_module_eh_cfi(m->mod, &bias);
  Dwarf_Frame *fr = NULL;
  uint64_t start;
  /* an FDE covers vaddr, and the table says where it starts */
  bool covered = cfi && dwarf_cfi_addrframe(cfi, vaddr - bias, &fr) == 0;
  free(fr);
  if(!covered || !fde_start(m, vaddr, &start))
    return true;
  char name[32];
  snprintf(name, sizeof(name), "fn_%" PRIx64, start);
  r->name = bpi_strtab_intern(&s->strs, name);
  r->unnamed = true;
  return r->name != BP_NONE;
}

/* How a function name ranks among others at its address, lower first:
 * the one people write (malloc, write) before the library's internal
 * aliases (__libc_malloc, __write, __GI___libc_write): fewer leading
 * underscores, then global before weak before local, then shorter. */
static uint64_t alias_rank(const char *name, unsigned bind)
{
  uint64_t underscores = strspn(name, "_");
  uint64_t len = strcspn(name, "@");
  uint64_t b = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
  return underscores << 40 | b << 32 | (len > UINT32_MAX ? UINT32_MAX : len);
}

/* For every address of m where several functions start, the best name
 * by alias_rank, into s->alias_of (once per module).  Addresses with one
 * function are left out: libdwfl names them already. */
static void read_aliases(struct bp_symbols *s, uint32_t id, struct module *m)
{
  struct bp_map best;  /* address -> symbol index of the best so far */
  int n = dwfl_module_getsymtab(m->mod);
  m->aliases_read = true;
  bpi_map_init(&best);
  for(int i = 1; i < n; i++) {
    GElf_Sym sym;
    GElf_Addr addr;
    const char *name = dwfl_module_getsym_info(m->mod, i, &sym, &addr, NULL,
                                               NULL, NULL);
    unsigned type = GELF_ST_TYPE(sym.st_info);
    if(!name || !*name || !addr ||
       (type != STT_FUNC && type != STT_GNU_IFUNC))
      continue;
    uint32_t have = bpi_map_get(&best, addr, 0);
    if(have == BP_NONE) {
      if(bpi_map_put(&best, addr, 0, (uint32_t)i))
        break;
      continue;
    }
    GElf_Sym hs;
    GElf_Addr ha;
    const char *hname = dwfl_module_getsym_info(m->mod, (int)have, &hs,
                                                &ha, NULL, NULL, NULL);
    uint64_t mine = alias_rank(name, GELF_ST_BIND(sym.st_info));
    uint64_t theirs = hname ? alias_rank(hname, GELF_ST_BIND(hs.st_info))
                            : UINT64_MAX;
    if(mine < theirs) {
      if(bpi_map_put(&best, addr, 0, (uint32_t)i))
        break;
      have = (uint32_t)i;
    }
    /* two functions here: remember the best name (replaced as better
     * ones come) */
    GElf_Sym bs;
    GElf_Addr ba;
    const char *bname = dwfl_module_getsym_info(m->mod, (int)have, &bs,
                                                &ba, NULL, NULL, NULL);
    uint32_t sid = bname ? bpi_strtab_intern(&s->strs, bname) : BP_NONE;
    if(sid == BP_NONE || bpi_map_put(&s->alias_of, id, addr, sid))
      break;
  }
  bpi_map_cleanup(&best);
}

/* The name people write for the function starting at start, when several
 * start there; NULL when one does (or it cannot be told). */
static const char *alias_name(struct bp_symbols *s, uint32_t id,
                              uint64_t start)
{
  struct module *m = &s->mods[id];
  if(!m->aliases_read)
    read_aliases(s, id, m);
  uint32_t sid = bpi_map_get(&s->alias_of, id, start);
  return sid == BP_NONE ? NULL : bpi_strtab_get(&s->strs, sid);
}

/* Ask libdwfl about vaddr.  false only when out of memory. */
static bool lookup(struct bp_symbols *s, uint32_t id, Dwfl_Module *mod,
                   uint64_t vaddr, struct result *r)
{
  GElf_Off off;
  GElf_Sym sym;
  const char *name = dwfl_module_addrinfo(mod, vaddr, &off, &sym, NULL,
                                          NULL, NULL);
  r->name = r->file = BP_NONE;
  r->line = r->start_line = 0;
  r->inl_at = r->ninl = 0;
  r->unnamed = false;
  /* a data object is no function, even when an address falls in it */
  if(!name || !*name || GELF_ST_TYPE(sym.st_info) == STT_OBJECT)
    return plt_lookup(s, mod, vaddr, r) &&
           (r->name != BP_NONE ||
            range_lookup_fde(s, &s->mods[id], vaddr, r));
  const char *alias = alias_name(s, id, vaddr - off);
  r->name = intern_name(s, alias ? alias : name);
  if(r->name == BP_NONE)
    return false;
  if(!s->mods[id].lines)
    return true;
  Dwfl_Line *l = dwfl_module_getsrc(mod, vaddr);
  int line = 0;
  const char *file = l ? dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL) :
                     NULL;
  if(file && *file) {
    r->file = bpi_strtab_intern(&s->strs, file);
    if(r->file == BP_NONE)
      return false;
    r->line = line > 0 ? (uint32_t)line : 0;
  }
  r->start_line = start_line(s, id, mod, vaddr - off);
  return s->no_inline || inline_chain(s, id, mod, vaddr, r);
}

/* The cached result of (module id, vaddr), resolving it the first time.
 * NULL when out of memory. */
static const struct result *result_get(struct bp_symbols *s, uint32_t id,
                                       Dwfl_Module *mod, uint64_t vaddr)
{
  uint32_t i = bpi_map_get(&s->result_of, id, vaddr);
  if(i != BP_NONE)
    return &s->results[i];
  if(s->nresults >= BP_NONE - 1)
    return NULL;
  struct result *results = grow_array(s->results, &s->results_cap,
                                      s->nresults + 1, sizeof(*results));
  if(!results)
    return NULL;
  s->results = results;
  struct result *r = &s->results[s->nresults];
  if(!lookup(s, id, mod, vaddr, r) ||
     bpi_map_put(&s->result_of, id, vaddr, (uint32_t)s->nresults))
    return NULL;
  s->nresults++;
  return r;
}

bool bpi_symbols_resolve(struct bp_symbols *s, const char *path,
                         const char *build_id, uint64_t vaddr,
                         struct bp_sym *out)
{
  uint32_t id;
  struct module *m = module_get(s, path, &id);
  if(!m || !m->mod)
    return false;
  if(build_id && *build_id && !build_id_matches(m->build_id, build_id))
    return false;  /* the file was replaced since it was mapped */
  const struct result *r = result_get(s, id, m->mod, vaddr);
  if(!r || r->name == BP_NONE)
    return false;
  out->name = bpi_strtab_get(&s->strs, r->name);
  out->file = r->file == BP_NONE ? NULL : bpi_strtab_get(&s->strs, r->file);
  out->line = r->line;
  out->start_line = r->start_line;
  out->inlines = s->out_inl;
  out->ninlines = r->ninl;
  out->unnamed = r->unnamed;
  for(uint32_t i = 0; i < r->ninl; i++) {
    const struct inl *in = &s->inls[r->inl_at + i];
    s->out_inl[i] = (struct bp_sym_inline){
      .name = bpi_strtab_get(&s->strs, in->name),
      .file = in->file == BP_NONE ? NULL : bpi_strtab_get(&s->strs, in->file),
      .line = in->line, .start_line = in->start_line,
    };
  }
  return true;
}

/* ------------------------------------------------- kallsyms and JIT maps */

static int range_cmp(const void *a, const void *b)
{
  const struct range *x = a, *y = b;
  if(x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sort and keep one symbol per start address: the first in the file when
 * keep_last is false (kallsyms aliases), the last when true (a JIT that
 * writes the same address again has replaced the code). */
static void range_sort(struct range_table *t, bool keep_last)
{
  if(!t->count)
    return;
  qsort(t->r, t->count, sizeof(*t->r), range_cmp);
  size_t n = 0;
  for(size_t i = 0; i < t->count; i++) {
    if(n && t->r[n - 1].start == t->r[i].start) {
      if(keep_last)
        t->r[n - 1] = t->r[i];
      continue;
    }
    t->r[n++] = t->r[i];
  }
  t->count = n;
}

static bool range_add(struct bp_symbols *s, struct range_table *t,
                      uint64_t start, uint64_t end, const char *name)
{
  if(t->count >= UINT32_MAX)
    return false;
  struct range *r = grow_array(t->r, &t->cap, t->count + 1, sizeof(*r));
  if(!r)
    return false;
  t->r = r;
  uint32_t id = bpi_strtab_intern(&s->strs, name);
  if(id == BP_NONE)
    return false;
  t->r[t->count] = (struct range){ .start = start, .end = end, .name = id,
                                   .seq = (uint32_t)t->count };
  t->count++;
  return true;
}

static bool range_lookup(struct bp_symbols *s, struct range_table *t,
                         uint64_t addr, struct bp_sym *out)
{
  /* first symbol that starts after addr; the one before may cover it */
  size_t lo = 0, hi = t->count;
  while(lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if(t->r[mid].start <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  if(!lo || addr >= t->r[lo - 1].end)
    return false;
  struct range *r = &t->r[lo - 1];
  if(s->demangle && !r->demangled) {
    /* demangle lazily: most of the 100k+ kernel symbols are never hit */
    char *dm = bpi_symbols_demangle(bpi_strtab_get(&s->strs, r->name));
    uint32_t id = dm ? bpi_strtab_intern(&s->strs, dm) : BP_NONE;
    free(dm);
    if(id != BP_NONE)
      r->name = id;
    r->demangled = true;
  }
  out->name = bpi_strtab_get(&s->strs, r->name);
  out->file = NULL;
  out->line = 0;
  out->start_line = 0;
  out->inlines = NULL;
  out->ninlines = 0;
  out->unnamed = false;
  return true;
}

/* A hex number at *p, with or without 0x; moves *p past it. */
static bool parse_hex(char **p, uint64_t *val)
{
  char *end;
  errno = 0;
  unsigned long long v = strtoull(*p, &end, 16);
  if(end == *p || errno || (*end != ' ' && *end != '\t'))
    return false;
  *val = v;
  *p = end;
  return true;
}

static char *skip_blanks(char *p)
{
  while(*p == ' ' || *p == '\t')
    p++;
  return p;
}

static void chomp(char *line, ssize_t len)
{
  while(len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
    line[--len] = '\0';
}

/* "ADDR TYPE NAME[\t[module]]": keep code symbols (t, T, w, W). */
static bool kallsyms_line(char *line, uint64_t *addr, char **name)
{
  char *p = line;
  if(!parse_hex(&p, addr))
    return false;
  p = skip_blanks(p);
  char type = *p;
  if(type != 't' && type != 'T' && type != 'w' && type != 'W')
    return false;
  p = skip_blanks(p + 1);
  if(!*p)
    return false;
  *name = p;
  p += strcspn(p, " \t");
  *p = '\0';
  return true;
}

/* Read kallsyms once.  A missing file or one with every address zero
 * (kptr_restrict) leaves the table empty, so kernel lookups fail. */
static void kallsyms_load(struct bp_symbols *s)
{
  struct range_table *t = &s->kernel;
  FILE *f = fopen(s->kallsyms, "re");
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  if(!f)
    return;
  while((len = getline(&line, &cap, f)) > 0) {
    uint64_t addr;
    char *name;
    chomp(line, len);
    if(!kallsyms_line(line, &addr, &name) || !addr)
      continue;
    if(!range_add(s, t, addr, 0, name))
      break;
  }
  free(line);
  fclose(f);
  range_sort(t, false);
  /* each symbol ends where the next begins */
  for(size_t i = 0; i < t->count; i++)
    t->r[i].end = i + 1 < t->count ? t->r[i + 1].start :
                  t->r[i].start + KSYM_LAST_SIZE;
}

bool bpi_symbols_resolve_kernel(struct bp_symbols *s, uint64_t addr,
                                struct bp_sym *out)
{
  if(!s->kernel_loaded) {
    s->kernel_loaded = true;
    kallsyms_load(s);
  }
  return range_lookup(s, &s->kernel, addr, out);
}

/* "START SIZE name with spaces": both numbers hex, 0x optional. */
static bool jit_line(char *line, uint64_t *start, uint64_t *size,
                     char **name)
{
  char *p = skip_blanks(line);
  if(!parse_hex(&p, start))
    return false;
  p = skip_blanks(p);
  if(!parse_hex(&p, size))
    return false;
  p = skip_blanks(p);
  if(!*p || !*size || *start + *size < *start)
    return false;
  *name = p;
  return true;
}

/* Read jit_map_dir/perf-PID.map into t; a missing file gives an empty
 * table, which is kept so the file is looked for once. */
static void jit_load(struct bp_symbols *s, pid_t pid, struct range_table *t)
{
  char path[4096];
  int n = snprintf(path, sizeof(path), "%s/perf-%ld.map", s->jit_map_dir,
                   (long)pid);
  if(n < 0 || (size_t)n >= sizeof(path))
    return;
  FILE *f = fopen(path, "re");
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  if(!f)
    return;
  while((len = getline(&line, &cap, f)) > 0) {
    uint64_t start, size;
    char *name;
    chomp(line, len);
    if(!jit_line(line, &start, &size, &name))
      continue;
    if(!range_add(s, t, start, start + size, name))
      break;
  }
  free(line);
  fclose(f);
  range_sort(t, true);
}

bool bpi_symbols_resolve_jit(struct bp_symbols *s, pid_t pid, uint64_t addr,
                             struct bp_sym *out)
{
  uint32_t i = bpi_map_get(&s->jit_of, (uint64_t)pid, 0);
  if(i == BP_NONE) {
    struct range_table *jits = grow_array(s->jits, &s->jits_cap,
                                          s->njits + 1, sizeof(*jits));
    if(!jits)
      return false;
    s->jits = jits;
    struct range_table *t = &s->jits[s->njits];
    memset(t, 0, sizeof(*t));
    jit_load(s, pid, t);
    i = (uint32_t)s->njits;
    if(bpi_map_put(&s->jit_of, (uint64_t)pid, 0, i)) {
      free(t->r);
      return false;
    }
    s->njits++;
  }
  return range_lookup(s, &s->jits[i], addr, out);
}

/* symbols: modules opened once (libdwfl, one Dwfl each), their separate
 * debug files, build ids and load segments; the cache of resolved
 * addresses and the public entry points (symbols.h).  The parts it asks:
 * symbols_dwarf.c, symbols_elf.c, symbols_ranges.c (symbols_int.h). */
#include "bp_setup.h"
#include "symbols_int.h"

#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <libiberty/demangle.h>

#include "buf.h"

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

/* A module's separate debug file from local files: by build id under
 * /usr/lib/debug/.build-id, else by its .gnu_debuglink name next to it, in
 * its .debug folder or under /usr/lib/debug, when that file has the
 * module's build id. */
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

/* A module's separate debug file: a local one, else, when the user asked
 * for it, one from debuginfod servers by build id (userdata is the
 * module's, set to the symbolizer in module_open).
 * dwfl_standard_find_debuginfo() would ask debuginfod whenever
 * DEBUGINFOD_URLS is set, as Debian sets it for every login: even with no
 * server configured, libdw (0.188) then loads libdebuginfod and its
 * libcurl, tens of milliseconds for every profile of a program without
 * debug files, and a runner would download debug info nobody asked for. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata,
                          const char *modname, GElf_Addr base,
                          const char *file_name, const char *debuglink_file,
                          GElf_Word debuglink_crc,
                          char **debuginfo_file_name)
{
  int fd = find_local_debuginfo(mod, userdata, modname, base, file_name,
                                debuglink_file, debuglink_crc,
                                debuginfo_file_name);
  struct bp_symbols *s = *userdata;
  if(fd >= 0 || !s || !s->dbg.urls)
    return fd;
  const unsigned char *bits;
  GElf_Addr vaddr;
  int len = dwfl_module_build_id(mod, &bits, &vaddr);
  return bpi_sym_debuginfod_find(&s->dbg, bits, len, debuginfo_file_name);
}

static const Dwfl_Callbacks dwfl_callbacks = {
  .find_elf = dwfl_build_id_find_elf,
  .find_debuginfo = find_debuginfo,
  .section_address = dwfl_offline_section_address,
  .debuginfo_path = NULL,
};

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
  s->recording = 1;
  bpi_strtab_init(&s->strs);
  bpi_strtab_init(&s->paths);
  bpi_map_init(&s->result_of);
  bpi_map_init(&s->start_of);
  bpi_map_init(&s->jit_of);
  bpi_map_init(&s->cu_of);
  bpi_map_init(&s->alias_of);
  bpi_map_init(&s->cxx_name_of);
  if(!s->jit_map_dir || !s->kallsyms ||
     bpi_sym_debuginfod_init(&s->dbg, opts)) {
    bpi_symbols_free(s);
    return BPE_NOMEM;
  }
  *out = s;
  return BP_OK;
}

/* The JIT maps, read again when next needed, and kallsyms. */
static void forget_ranges(struct bp_symbols *s)
{
  for(size_t i = 0; i < s->njits; i++)
    free(s->jits[i].r);
  free(s->jits);
  s->jits = NULL;
  s->njits = s->jits_cap = 0;
  bpi_map_cleanup(&s->jit_of);
  bpi_map_init(&s->jit_of);
  bpi_sym_forget_kernel(s);
}

void bpi_symbols_free(struct bp_symbols *s)
{
  if(!s)
    return;
  for(size_t i = 0; i < s->nmods; i++) {
    if(s->mods[i].dwfl)
      dwfl_end(s->mods[i].dwfl);
    free(s->mods[i].segs);
    free(s->mods[i].fde_starts);
    free(s->mods[i].fn_starts);
  }
  free(s->mods);
  free(s->mod_of);
  forget_ranges(s);
  free(s->results);
  free(s->inls);
  for(size_t i = 0; i < s->ncus; i++) {
    free(s->cus[i].dies);
    free(s->cus[i].ranges);
  }
  free(s->cus);
  bpi_map_cleanup(&s->cu_of);
  bpi_map_cleanup(&s->alias_of);
  bpi_map_cleanup(&s->cxx_name_of);
  bpi_map_cleanup(&s->jit_of);
  bpi_map_cleanup(&s->start_of);
  bpi_map_cleanup(&s->result_of);
  bpi_strtab_cleanup(&s->paths);
  bpi_strtab_cleanup(&s->strs);
  bpi_sym_debuginfod_cleanup(&s->dbg);
  free(s->kallsyms);
  free(s->jit_map_dir);
  free(s);
}

void bpi_symbols_begin_recording(struct bp_symbols *s)
{
  s->recording++;
  memset(&s->tables, 0, sizeof(s->tables));
  /* pids are reused: another process's JIT map.  kallsyms is checked at
   * the recording's first kernel lookup (symbols_ranges.c) */
  for(size_t i = 0; i < s->njits; i++)
    free(s->jits[i].r);
  s->njits = 0;
  bpi_map_cleanup(&s->jit_of);
  bpi_map_init(&s->jit_of);
  bpi_sym_debuginfod_restart(&s->dbg);
}

void bpi_symbols_tables(const struct bp_symbols *s,
                        struct bp_symbols_tables *out)
{
  *out = s->tables;
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

/* The size of the ELF image at base (the vDSO): where its section headers
 * or its last loaded segment end, whichever is later; 0 when it is not an
 * ELF image of this process's class.  The vDSO is mapped whole, headers
 * included, so this reads only our own mapping (and /proc/self/maps,
 * which a recording's rings make long, need not be printed for its
 * size). */
static size_t vdso_size(unsigned long base)
{
  const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)(uintptr_t)base;
  unsigned char native = sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32;
  if(memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != native ||
     eh->e_phentsize != sizeof(ElfW(Phdr)))
    return 0;
  uint64_t end = eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize;
  const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(uintptr_t)(base + eh->e_phoff);
  for(unsigned i = 0; i < eh->e_phnum; i++)
    if(ph[i].p_type == PT_LOAD && ph[i].p_offset + ph[i].p_filesz > end)
      end = ph[i].p_offset + ph[i].p_filesz;
  return end <= (64u << 20) ? (size_t)end : 0;
}

/* The kernel maps the same vDSO into every process of an architecture, so
 * the profiled processes' "[vdso]" is read from our own copy: a memfd with
 * the bytes of our mapping.  -1 when that fails (the frames then stay
 * unresolved). */
static int vdso_fd(void)
{
  unsigned long base = getauxval(AT_SYSINFO_EHDR);
  size_t len = base ? vdso_size(base) : 0;
  if(!len)
    return -1;
  int fd = memfd_create("vdso", MFD_CLOEXEC);
  if(fd < 0)
    return -1;
  /* a size past the mapping fails here with EFAULT, not a crash */
  if(write(fd, (const void *)(uintptr_t)base, len) != (ssize_t)len ||
     lseek(fd, 0, SEEK_SET) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

/* Open path with libdwfl at base 0 so that module addresses are the ELF
 * virtual addresses (add_p_vaddr: an ET_DYN whose first PT_LOAD is not at
 * 0 keeps a bias of 0 too).  The module's userdata is s, for
 * find_debuginfo.  Failure is remembered in m->rc. */
static void module_open(struct bp_symbols *s, struct module *m,
                        const char *path)
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
  void **userdata;
  dwfl_module_info(m->mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
  *userdata = s;
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

struct file_id bpi_sym_file_id(const char *path)
{
  struct file_id f = {.known = false};
  struct stat st;
  if(strcmp(path, VDSO_PATH) && !stat(path, &st))
    f = (struct file_id){.dev = st.st_dev, .ino = st.st_ino,
                         .size = (uint64_t)st.st_size,
                         .mtime_s = st.st_mtim.tv_sec,
                         .mtime_ns = st.st_mtim.tv_nsec, .known = true};
  return f;
}

bool bpi_sym_same_file(const struct file_id *a, const struct file_id *b)
{
  return a->known && b->known && a->dev == b->dev && a->ino == b->ino &&
         a->size == b->size && a->mtime_s == b->mtime_s &&
         a->mtime_ns == b->mtime_ns;
}

/* A new module for path (path id pid), opened now; its index in *id.
 * false only when out of memory. */
static bool module_add(struct bp_symbols *s, const char *path, uint32_t pid,
                       const struct file_id *file, uint32_t *id)
{
  struct module *mods = grow_array(s->mods, &s->mods_cap, s->nmods + 1,
                                   sizeof(*mods));
  if(!mods || s->nmods >= BP_NONE - 1)
    return false;
  s->mods = mods;
  uint32_t *mod_of = grow_array(s->mod_of, &s->mod_of_cap,
                                (size_t)pid + 1, sizeof(*mod_of));
  if(!mod_of)
    return false;
  s->mod_of = mod_of;
  *id = (uint32_t)s->nmods++;
  struct module *m = &s->mods[*id];
  memset(m, 0, sizeof(*m));
  m->file = *file;
  m->checked = s->recording;
  m->lines = wants_lines(s->lines, path);
  module_open(s, m, path);
  s->mod_of[pid] = *id;
  s->tables.read++;
  return true;
}

/* The module of path, opened on first use, and again at its first use in
 * a later recording if its file changed (bpi_symbols_begin_recording);
 * *id is its index in mods.  NULL only when out of memory; a module that
 * failed to open has mod == NULL.  The vDSO is the kernel's, the same in
 * every process: never read again. */
static struct module *module_get(struct bp_symbols *s, const char *path,
                                 uint32_t *id)
{
  uint32_t pid = bpi_strtab_find(&s->paths, path);
  if(pid == BP_NONE) {
    pid = bpi_strtab_intern(&s->paths, path);
    struct file_id file = bpi_sym_file_id(path);
    if(pid == BP_NONE || !module_add(s, path, pid, &file, id))
      return NULL;
    return &s->mods[*id];
  }
  *id = s->mod_of[pid];
  struct module *m = &s->mods[*id];
  if(m->checked == s->recording)
    return m;
  m->checked = s->recording;
  struct file_id file = bpi_sym_file_id(path);
  if(bpi_sym_same_file(&m->file, &file) || !strcmp(path, VDSO_PATH)) {
    s->tables.reused++;
    return m;
  }
  return module_add(s, path, pid, &file, id) ? &s->mods[*id] : NULL;
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

/* Intern name, demangled when asked to; BP_NONE when out of memory.
 * A symbol version ("clock_gettime@@GLIBC_2.17" in .symtab) is dropped:
 * people know the function by its name, and one function should not show
 * up under two names. */
uint32_t bpi_sym_intern_name(struct bp_symbols *s, const char *name)
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

/* Ask libdwfl about vaddr.  false only when out of memory. */
static bool lookup(struct bp_symbols *s, uint32_t id, Dwfl_Module *mod,
                   uint64_t vaddr, struct result *r)
{
  GElf_Off off = 0;
  GElf_Sym sym = {.st_info = GELF_ST_INFO(STB_GLOBAL, STT_FUNC)};
  uint64_t start;
  const char *name = bpi_sym_function_at(s, id, vaddr, &start);
  if(name)
    off = vaddr - start;
  else
    name = dwfl_module_addrinfo(mod, vaddr, &off, &sym, NULL, NULL, NULL);
  r->name = r->file = BP_NONE;
  r->line = r->start_line = 0;
  r->inl_at = r->ninl = 0;
  r->unnamed = false;
  /* a data object is no function, even when an address falls in it */
  if(!name || !*name || GELF_ST_TYPE(sym.st_info) == STT_OBJECT)
    return bpi_sym_plt_lookup(s, mod, vaddr, r) &&
           (r->name != BP_NONE ||
            bpi_sym_fde_lookup(s, &s->mods[id], vaddr, r));
  const char *alias = bpi_sym_alias_name(s, id, vaddr - off);
  r->name = bpi_sym_intern_name(s, alias ? alias : name);
  if(r->name == BP_NONE)
    return false;
  if(!s->mods[id].lines)
    return true;
  Dwfl_Line *l = bpi_sym_line_at(mod, vaddr);
  int line = 0;
  const char *file = l ? dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL) :
                     NULL;
  if(file && *file) {
    r->file = bpi_strtab_intern(&s->strs, file);
    if(r->file == BP_NONE)
      return false;
    r->line = line > 0 ? (uint32_t)line : 0;
  }
  r->start_line = bpi_sym_start_line(s, id, mod, vaddr - off);
  return s->no_inline || bpi_sym_inline_chain(s, id, mod, vaddr, r);
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

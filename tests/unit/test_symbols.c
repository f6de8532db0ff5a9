/* Unit test of plugin/lib/symbols.c: resolves places in fixture programs
 * (tests/unit/fixtures, built by tests/symbols.mk) whose virtual addresses
 * the fixtures print themselves, in the libc this test runs with, in a
 * Rust program compiled here when $RUSTC is set, and in crafted kallsyms
 * and perf-PID.map files. */
#include "bp_setup.h"
#include "symbols.h"
#include "symbols_int.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define OUT_MAX (64 * 1024)

static const char *top_srcdir;
static const char *top_builddir;
static char tmpdir[PATH_MAX];

/* ---------------------------------------------------------------- helpers */

/* Run argv, its stdout into out (NUL-terminated).  Returns the exit
 * status, -1 when it could not run. */
static int run_capture(char *const argv[], char *out, size_t cap)
{
  int fds[2];
  size_t len = 0;
  int status;
  if(pipe(fds))
    return -1;
  pid_t pid = fork();
  if(pid < 0)
    return -1;
  if(!pid) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    execv(argv[0], argv);
    _exit(127);
  }
  close(fds[1]);
  for(;;) {
    ssize_t n = read(fds[0], out + len, cap - 1 - len);
    if(n < 0 && errno == EINTR)
      continue;
    if(n <= 0)
      break;
    len += (size_t)n;
    if(len == cap - 1)
      break;
  }
  out[len] = '\0';
  close(fds[0]);
  if(waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
    return -1;
  return WEXITSTATUS(status);
}

/* The value of "key HEX" in a fixture's output, 0 when missing. */
static uint64_t output_value(const char *out, const char *key)
{
  size_t klen = strlen(key);
  for(const char *p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p)
    if(!strncmp(p, key, klen) && p[klen] == ' ')
      return strtoull(p + klen + 1, NULL, 16);
  return 0;
}

/* The line number of the line of path that contains marker, 0 if none. */
static uint32_t marker_line(const char *path, const char *marker)
{
  FILE *f = fopen(path, "r");
  char line[1024];
  uint32_t n = 0, found = 0;
  if(!f)
    return 0;
  while(!found && fgets(line, sizeof(line), f)) {
    n++;
    if(strstr(line, marker))
      found = n;
  }
  fclose(f);
  return found;
}

static void join(char *dst, size_t cap, const char *a, const char *b)
{
  int n = snprintf(dst, cap, "%s/%s", a, b);
  if(n < 0 || (size_t)n >= cap) {
    fprintf(stderr, "path too long: %s/%s\n", a, b);
    exit(1);
  }
}

static bool write_file(const char *path, const char *text)
{
  FILE *f = fopen(path, "w");
  if(!f)
    return false;
  bool ok = fputs(text, f) >= 0;
  return fclose(f) == 0 && ok;
}

static bool ends_with(const char *s, const char *suffix)
{
  size_t n = s ? strlen(s) : 0, m = strlen(suffix);
  return n >= m && !strcmp(s + n - m, suffix);
}

/* The mapping of maps text (/proc/PID/maps) that holds addr: its start,
 * file offset and path.  false when none. */
static bool maps_find(const char *maps, uint64_t addr, uint64_t *start,
                      uint64_t *pgoff, char *path, size_t cap)
{
  const char *p = maps;
  while(p && *p) {
    unsigned long long lo, hi, off;
    int pos = 0;
    if(sscanf(p, "%llx-%llx %*s %llx %*s %*s %n", &lo, &hi, &off, &pos) == 3
       && pos && addr >= lo && addr < hi) {
      size_t n = strcspn(p + pos, "\n");
      if(n >= cap)
        return false;
      memcpy(path, p + pos, n);
      path[n] = '\0';
      *start = lo;
      *pgoff = off;
      return true;
    }
    p = strchr(p, '\n');
    if(p)
      p++;
  }
  return false;
}

/* Runtime address -> ELF vaddr through the mapping and vaddr_delta, as the
 * converter does. */
static bool runtime_to_vaddr(struct bp_symbols *s, const char *maps,
                             uint64_t addr, char *path, size_t cap,
                             uint64_t *vaddr)
{
  uint64_t start, pgoff;
  int64_t delta = 0;
  if(!maps_find(maps, addr, &start, &pgoff, path, cap))
    return false;
  bp_code rc = bpi_symbols_vaddr_delta(s, path, pgoff, &delta);
  CHECK_EQ_INT(rc, BP_OK);
  *vaddr = addr - start + pgoff + (uint64_t)delta;
  return rc == BP_OK;
}

/* Paths in /proc/PID/maps have their symbolic links resolved. */
static bool same_file(const char *a, const char *b)
{
  char ra[PATH_MAX], rb[PATH_MAX];
  return realpath(a, ra) && realpath(b, rb) && !strcmp(ra, rb);
}

static char *slurp(const char *path)
{
  FILE *f = fopen(path, "r");
  char *buf = calloc(1, OUT_MAX);
  if(f && buf)
    buf[fread(buf, 1, OUT_MAX - 1, f)] = '\0';
  if(f)
    fclose(f);
  return buf;
}

/* ------------------------------------------------------------- demangling */

static void test_demangle(void)
{
  char *d;
  d = bpi_symbols_demangle("_ZN2ns5KlassIiE6methodEi");
  CHECK_EQ_STR(d, "ns::Klass<int>::method(int)");
  free(d);
  /* Rust legacy: the ::h<hash> suffix goes */
  d = bpi_symbols_demangle("_ZN4core3fmt5write17h0123456789abcdefE");
  CHECK_EQ_STR(d, "core::fmt::write");
  free(d);
  d = bpi_symbols_demangle(
    "_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$"
    "17h7e3ba4b4b7c5a2e1E");
  CHECK_EQ_STR(d, "std::rt::lang_start::{{closure}}");
  free(d);
  /* Rust v0 */
  d = bpi_symbols_demangle("_RNvNtCs1234_7mycrate5inner3foo");
  CHECK_EQ_STR(d, "mycrate::inner::foo");
  free(d);
  d = bpi_symbols_demangle("_RNvMNtCs1234_7mycrate5innerINtB2_3BoxmE3new");
  CHECK(d && strstr(d, "Box<u32>") && ends_with(d, "::new"));
  free(d);
  CHECK(!bpi_symbols_demangle("main"));
  CHECK(!bpi_symbols_demangle("qsort"));
  CHECK(!bpi_symbols_demangle("_Zgarbage"));
  CHECK(!bpi_symbols_demangle(""));
}

/* ------------------------------------------------------- fixture programs */

/* Run a fixture; its output in out.  false (after a failed CHECK) when it
 * is missing or fails. */
static bool run_fixture(const char *path, char *out, size_t cap)
{
  char *argv[] = { (char *)path, NULL };
  int rc = run_capture(argv, out, cap);
  if(rc)
    fprintf(stderr, "fixture %s: exit %d\n", path, rc);
  CHECK_EQ_INT(rc, 0);
  return rc == 0;
}

/* symfix.c built as name: names, file:line and the declaration line. */
static void test_c_fixture(struct bp_symbols *s, const char *name)
{
  char path[PATH_MAX], src[PATH_MAX], dir[PATH_MAX], mapped[PATH_MAX];
  char out[OUT_MAX];
  struct bp_sym sym, again;
  uint64_t vaddr = 0;
  join(dir, sizeof(dir), top_builddir, "tests/unit/fixtures");
  join(path, sizeof(path), dir, name);
  join(src, sizeof(src), top_srcdir, "tests/unit/fixtures/symfix.c");
  if(!run_fixture(path, out, sizeof(out)))
    return;
  uint64_t start = output_value(out, "add_start");
  uint64_t call = output_value(out, "add_call");
  uint64_t runtime = output_value(out, "add_call_runtime");

  /* the way the converter gets there: mapping + vaddr_delta */
  CHECK(runtime_to_vaddr(s, out, runtime, mapped, sizeof(mapped), &vaddr));
  CHECK_EQ_INT(vaddr, call);
  CHECK(same_file(mapped, path));
  uint32_t decl = marker_line(src, "@add_decl");
  uint32_t line = marker_line(src, "@add_call");
  CHECK(start && call && decl && line);

  memset(&sym, 0, sizeof(sym));
  CHECK(bpi_symbols_resolve(s, path, NULL, call, &sym));
  CHECK_EQ_STR(sym.name, "symfix_add");
  CHECK(ends_with(sym.file, "/symfix.c"));
  CHECK_EQ_INT(sym.line, line);
  CHECK_EQ_INT(sym.start_line, decl);

  /* the function's first byte: same function, its declaration line */
  memset(&sym, 0, sizeof(sym));
  CHECK(bpi_symbols_resolve(s, path, "", start, &sym));
  CHECK_EQ_STR(sym.name, "symfix_add");
  CHECK_EQ_INT(sym.start_line, decl);

  /* cached: the same strings come back */
  memset(&again, 0, sizeof(again));
  CHECK(bpi_symbols_resolve(s, path, NULL, call, &again));
  CHECK(again.name == sym.name);

  /* a local function nested in a global one: the global one, as libdwfl
   * answers (global symbols first); its own start too, and after it the
   * rest of the outer one */
  uint64_t outer = output_value(out, "outer_start");
  uint64_t inner = output_value(out, "inner_start");
  CHECK(outer && inner > outer);
  static const int64_t at[] = {0, 1, -1};
  for(size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
    uint64_t a = at[i] < 0 ? outer + (uint64_t)(-at[i])
                           : inner + (uint64_t)at[i];
    memset(&sym, 0, sizeof(sym));
    CHECK(bpi_symbols_resolve(s, path, NULL, a, &sym));
    CHECK_EQ_STR(sym.name, "symfix_outer");
  }

  /* an address in no symbol: below the module, and far above it */
  CHECK(!bpi_symbols_resolve(s, path, NULL, 0x10, &sym));
  CHECK(!bpi_symbols_resolve(s, path, NULL, 0x7fffffff0000ULL, &sym));
}

/* The PIE's first page is its ELF header, inside the module but in no
 * symbol. */
static void test_no_symbol(struct bp_symbols *s)
{
  char path[PATH_MAX];
  struct bp_sym sym;
  join(path, sizeof(path), top_builddir, "tests/unit/fixtures/symfix_pie");
  CHECK(!bpi_symbols_resolve(s, path, NULL, 0, &sym));
  CHECK(!bpi_symbols_resolve(s, path, NULL, 0x40, &sym));
}

static void test_build_id(struct bp_symbols *s)
{
  static const char want[] = "0123456789abcdef0123456789abcdef01234567";
  char path[PATH_MAX], cxx[PATH_MAX], out[4096], hex[41];
  struct bp_sym sym;
  join(path, sizeof(path), top_builddir, "tests/unit/fixtures/symfix_nopie");
  join(cxx, sizeof(cxx), top_builddir, "tests/unit/fixtures/symfix_cxx");
  if(!run_fixture(path, out, sizeof(out)))
    return;
  uint64_t call = output_value(out, "add_call");

  CHECK_EQ_INT(bpi_symbols_build_id(s, path, hex, sizeof(hex)), BP_OK);
  CHECK_EQ_STR(hex, want);
  CHECK_EQ_INT(bpi_symbols_build_id(s, path, hex, 8), BPE_INVAL);
  CHECK(bpi_symbols_resolve(s, path, want, call, &sym));
  /* any case, and zero padding (a short id from the kernel) */
  CHECK(bpi_symbols_resolve(s, path,
                            "0123456789ABCDEF0123456789ABCDEF01234567",
                            call, &sym));
  CHECK(bpi_symbols_resolve(s, path,
                            "0123456789abcdef0123456789abcdef012345670000",
                            call, &sym));
  /* a file replaced since it was mapped gives no name at all */
  CHECK(!bpi_symbols_resolve(s, path,
                             "89abcdef0123456789abcdef0123456789abcdef",
                             call, &sym));
  CHECK(!bpi_symbols_resolve(s, path, "0123", call, &sym));

  /* symfix_cxx has no build id: none to compare, so a given one differs */
  CHECK_EQ_INT(bpi_symbols_build_id(s, cxx, hex, sizeof(hex)), BP_OK);
  CHECK_EQ_STR(hex, "");
}

static void test_cxx(struct bp_symbols *s, struct bp_symbols *raw)
{
  char path[PATH_MAX], out[4096];
  struct bp_sym sym;
  join(path, sizeof(path), top_builddir, "tests/unit/fixtures/symfix_cxx");
  if(!run_fixture(path, out, sizeof(out)))
    return;
  uint64_t call = output_value(out, "method_call");
  CHECK(call);
  memset(&sym, 0, sizeof(sym));
  CHECK(bpi_symbols_resolve(s, path, NULL, call, &sym));
  CHECK_EQ_STR(sym.name, "ns::Klass<int>::method(int)");
  CHECK(ends_with(sym.file, "/symfix.cc"));
  CHECK(sym.line > 0);
  CHECK(!bpi_symbols_resolve(s, path, "0123456789abcdef", call, &sym));
  /* demangle = false keeps the linkage name */
  memset(&sym, 0, sizeof(sym));
  CHECK(bpi_symbols_resolve(raw, path, NULL, call, &sym));
  CHECK_EQ_STR(sym.name, "_ZN2ns5KlassIiE6methodEi");
}

/* The innermost call inlined at the return address key_pc of the
 * -O2 fixture's output is named as the symbol table names its
 * out-of-line copy (key_copy), and that is want. */
static void check_inlined_name(struct bp_symbols *s, const char *path,
                               const char *out, const char *key,
                               const char *want)
{
  char k[64];
  struct bp_sym sym;
  snprintf(k, sizeof(k), "%s_pc", key);
  uint64_t pc = output_value(out, k);
  snprintf(k, sizeof(k), "%s_copy", key);
  uint64_t copy = output_value(out, k);
  CHECK(pc && copy);
  memset(&sym, 0, sizeof(sym));
  CHECK(bpi_symbols_resolve(s, path, NULL, copy, &sym));
  CHECK_EQ_STR(sym.name, want);
  memset(&sym, 0, sizeof(sym));
  CHECK(bpi_symbols_resolve(s, path, NULL, pc - 1, &sym));
  CHECK_EQ_STR(sym.name, "main");
  CHECK(sym.ninlines >= 1);
  if(sym.ninlines >= 1) {
    printf("  inlined at %#" PRIx64 ": %s (%s:%u)\n", pc - 1,
           sym.inlines[0].name, sym.inlines[0].file ? sym.inlines[0].file
                                                    : "?",
           sym.inlines[0].line);
    CHECK_EQ_STR(sym.inlines[0].name, want);
  }
}

/* An -O2 C++ program: _start, just after main's last line row, has no
 * source line (it has no DWARF); calls inlined of functions without a
 * linkage name read like their out-of-line copies, scopes, parameters
 * and template arguments included. */
static void test_optimized(struct bp_symbols *s)
{
  char path[PATH_MAX], out[4096];
  struct bp_sym sym;
  join(path, sizeof(path), top_builddir, "tests/unit/fixtures/symfix_opt");
  if(!run_fixture(path, out, sizeof(out)))
    return;
  uint64_t start = output_value(out, "start");
  CHECK(start);
  memset(&sym, 0, sizeof(sym));
  CHECK(bpi_symbols_resolve(s, path, NULL, start, &sym));
  CHECK_EQ_STR(sym.name, "_start");
  printf("  _start: %s:%u, declared at %u\n", sym.file ? sym.file : "-",
         sym.line, sym.start_line);
  CHECK(sym.file == NULL && sym.line == 0 && sym.start_line == 0);
  memset(&sym, 0, sizeof(sym));
  CHECK(bpi_symbols_resolve(s, path, NULL, start + 4, &sym));
  CHECK(sym.file == NULL && sym.line == 0);
  check_inlined_name(s, path, out, "inl", "app::detail::inl(long)");
  check_inlined_name(s, path, out, "anon", "(anonymous namespace)::anon(int)");
  check_inlined_name(s, path, out, "poke",
                     "(anonymous namespace)::Widget::poke(char const*) const");
  /* template arguments and the return type as the demangler writes them,
   * not as GCC's DW_AT_name does ("long unsigned int", "short int") */
  check_inlined_name(s, path, out, "tw",
                     "unsigned long app::(anonymous namespace)::"
                     "tw<unsigned long>(unsigned long, long)");
  check_inlined_name(s, path, out, "tv",
                     "void* app::(anonymous namespace)::"
                     "tv<app::(anonymous namespace)::Box<short>, -3, 5ul, "
                     "true>(app::(anonymous namespace)::Box<short> const&)");
}

/* A function of a shared library: its runtime address goes through
 * /proc/self/maps and vaddr_delta, and must land where the dynamic
 * linker's load bias says, inside a symbol whose name contains want. */
static void shared_case(struct bp_symbols *s, const char *maps, void *fn,
                        const char *want)
{
  char path[PATH_MAX];
  struct link_map *lm = NULL;
  Dl_info info;
  struct bp_sym sym;
  uint64_t vaddr = 0;
  CHECK(dladdr1(fn, &info, (void **)&lm, RTLD_DL_LINKMAP) != 0);
  CHECK(lm != NULL);
  if(!lm || !runtime_to_vaddr(s, maps, (uint64_t)(uintptr_t)fn, path,
                              sizeof(path), &vaddr))
    return;
  CHECK_EQ_INT(vaddr, (uint64_t)(uintptr_t)fn - lm->l_addr);
  memset(&sym, 0, sizeof(sym));
  CHECK(bpi_symbols_resolve(s, path, NULL, vaddr + 4, &sym));
  CHECK(sym.name && strstr(sym.name, want));
  printf("shared library: %s: %#" PRIx64 " -> %s\n", path, vaddr,
         sym.name ? sym.name : "(none)");
}

static void test_shared_library(struct bp_symbols *s)
{
  char *maps = slurp("/proc/self/maps");
  CHECK(maps != NULL);
  if(!maps)
    return;
  /* qsort as linked: libc's, or the sanitizer's interceptor */
  shared_case(s, maps, (void *)(uintptr_t)&qsort, "qsort");
  /* libc's own qsort even under a sanitizer */
  void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
  void *fn = libc ? dlsym(libc, "qsort") : NULL;
  if(fn)
    shared_case(s, maps, fn, "qsort");
  else
    printf("libc.so.6 qsort: skipped, not found\n");
  if(libc)
    dlclose(libc);
  free(maps);
}

/* Write an ELF header and the given PT_LOAD headers, padded to a page. */
static bool write_elf(const char *path, uint16_t type,
                      const Elf64_Phdr *ph, size_t n)
{
  unsigned char image[4096];
  Elf64_Ehdr eh;
  memset(image, 0, sizeof(image));
  memset(&eh, 0, sizeof(eh));
  memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = type;
  eh.e_machine = EM_X86_64;
  eh.e_version = EV_CURRENT;
  eh.e_phoff = sizeof(eh);
  eh.e_ehsize = sizeof(eh);
  eh.e_phentsize = sizeof(*ph);
  eh.e_phnum = (uint16_t)n;
  memcpy(image, &eh, sizeof(eh));
  memcpy(image + sizeof(eh), ph, n * sizeof(*ph));
  FILE *f = fopen(path, "wb");
  if(!f)
    return false;
  bool ok = fwrite(image, 1, sizeof(image), f) == sizeof(image);
  return fclose(f) == 0 && ok;
}

/* The ELF virtual address of the vDSO's clock_gettime, from our own
 * mapping's dynamic symbols; 0 when it has none. */
static uint64_t vdso_clock_gettime(void)
{
  unsigned long base = getauxval(AT_SYSINFO_EHDR);
  if(!base)
    return 0;
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)(uintptr_t)base;
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(uintptr_t)(base + eh->e_shoff);
  for(unsigned i = 0; i < eh->e_shnum; i++) {
    if(sh[i].sh_type != SHT_DYNSYM || !sh[i].sh_entsize)
      continue;
    const Elf64_Sym *sym =
      (const Elf64_Sym *)(uintptr_t)(base + sh[i].sh_offset);
    const char *names =
      (const char *)(uintptr_t)(base + sh[sh[i].sh_link].sh_offset);
    for(size_t k = 0; k < sh[i].sh_size / sh[i].sh_entsize; k++)
      if(strstr(names + sym[k].st_name, "clock_gettime") && sym[k].st_value)
        return sym[k].st_value;
  }
  return 0;
}

/* "[vdso]" is read from this process's own copy of the vDSO: its
 * clock_gettime has a name (any of its aliases). */
static void test_vdso(struct bp_symbols *s)
{
  uint64_t vaddr = vdso_clock_gettime();
  struct bp_sym out;
  if(!vaddr) {
    printf("  no vDSO clock_gettime here\n");
    return;
  }
  CHECK(bpi_symbols_resolve(s, "[vdso]", NULL, vaddr, &out));
  CHECK(out.name && strstr(out.name, "clock_gettime"));
}

/* vaddr_delta on layouts the fixtures do not have.  These are
 * little-endian x86-64 headers: only their numbers matter here. */
static void test_vaddr_delta(struct bp_symbols *s)
{
  char path[PATH_MAX];
  int64_t delta;
  /* lld-style: segments not page-aligned in the file, so the R and the
   * RX segment start on the same file page; a mapping at offset 0 that
   * samples land in is the code */
  static const Elf64_Phdr lld[] = {
    { .p_type = PT_LOAD, .p_flags = PF_R, .p_offset = 0, .p_vaddr = 0,
      .p_filesz = 0x620, .p_memsz = 0x620, .p_align = 0x1000 },
    { .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = 0x620,
      .p_vaddr = 0x1620, .p_filesz = 0x200, .p_memsz = 0x200,
      .p_align = 0x1000 },
    { .p_type = PT_LOAD, .p_flags = PF_R | PF_W, .p_offset = 0x3820,
      .p_vaddr = 0x5820, .p_filesz = 0x100, .p_memsz = 0x900,
      .p_align = 0x1000 },
  };
  /* ld -z separate-code, non-PIE */
  static const Elf64_Phdr exec[] = {
    { .p_type = PT_LOAD, .p_flags = PF_R, .p_offset = 0,
      .p_vaddr = 0x400000, .p_filesz = 0x5a8, .p_memsz = 0x5a8,
      .p_align = 0x1000 },
    { .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = 0x1000,
      .p_vaddr = 0x401000, .p_filesz = 0x3000, .p_memsz = 0x3000,
      .p_align = 0x1000 },
    { .p_type = PT_LOAD, .p_flags = PF_R | PF_W, .p_offset = 0x4e10,
      .p_vaddr = 0x405e10, .p_filesz = 0x230, .p_memsz = 0x240,
      .p_align = 0x1000 },
  };
  join(path, sizeof(path), tmpdir, "lld.elf");
  CHECK(write_elf(path, ET_DYN, lld, BP_ARRAY_LEN(lld)));
  CHECK_EQ_INT(bpi_symbols_vaddr_delta(s, path, 0, &delta), BP_OK);
  CHECK_EQ_INT(delta, 0x1000);
  CHECK_EQ_INT(bpi_symbols_vaddr_delta(s, path, 0x3000, &delta), BP_OK);
  CHECK_EQ_INT(delta, 0x2000);
  CHECK_EQ_INT(bpi_symbols_vaddr_delta(s, path, 0x9000, &delta), BPE_FORMAT);

  join(path, sizeof(path), tmpdir, "exec.elf");
  CHECK(write_elf(path, ET_EXEC, exec, BP_ARRAY_LEN(exec)));
  CHECK_EQ_INT(bpi_symbols_vaddr_delta(s, path, 0, &delta), BP_OK);
  CHECK_EQ_INT(delta, 0x400000);
  CHECK_EQ_INT(bpi_symbols_vaddr_delta(s, path, 0x1000, &delta), BP_OK);
  CHECK_EQ_INT(delta, 0x400000);
  /* a mapping split by mprotect starts inside its segment */
  CHECK_EQ_INT(bpi_symbols_vaddr_delta(s, path, 0x3000, &delta), BP_OK);
  CHECK_EQ_INT(delta, 0x400000);
  CHECK_EQ_INT(bpi_symbols_vaddr_delta(s, path, 0x4000, &delta), BP_OK);
  CHECK_EQ_INT(delta, 0x401000);
}

static void test_bad_files(struct bp_symbols *s)
{
  char missing[PATH_MAX], src[PATH_MAX], hex[41];
  struct bp_sym sym;
  int64_t delta;
  join(missing, sizeof(missing), tmpdir, "no-such-file");
  join(src, sizeof(src), top_srcdir, "tests/unit/fixtures/symfix.c");
  CHECK(!bpi_symbols_resolve(s, missing, NULL, 0x1000, &sym));
  CHECK_EQ_INT(bpi_symbols_vaddr_delta(s, missing, 0, &delta), BPE_IO);
  CHECK_EQ_INT(bpi_symbols_build_id(s, missing, hex, sizeof(hex)), BPE_IO);
  CHECK(!bpi_symbols_resolve(s, src, NULL, 0x1000, &sym));
  CHECK_EQ_INT(bpi_symbols_vaddr_delta(s, src, 0, &delta), BPE_FORMAT);
}

/* ---------------------------------------------------------------- Rust */

/* Compile symfix.rs with mangling (NULL: the compiler's default), run it,
 * and resolve mymod::compute through its own /proc/self/maps. */
static void rust_case(struct bp_symbols *s, struct bp_symbols *raw,
                      const char *rustc, const char *mangling)
{
  char src[PATH_MAX], exe[PATH_MAX], path[PATH_MAX], flag[64];
  char *out = malloc(OUT_MAX);
  struct bp_sym sym;
  uint64_t vaddr = 0;
  join(src, sizeof(src), top_srcdir, "tests/unit/fixtures/symfix.rs");
  join(exe, sizeof(exe), tmpdir, mangling ? "symfix_v0" : "symfix_default");
  char *argv[] = { (char *)rustc, "--crate-name", "symfix", "-g",
                   "-C", "force-frame-pointers=yes", "-o", exe, src,
                   NULL, NULL, NULL };
  if(mangling) {
    snprintf(flag, sizeof(flag), "symbol-mangling-version=%s", mangling);
    argv[9] = "-C";
    argv[10] = flag;
  }
  CHECK(out != NULL);
  if(!out)
    return;
  int rc = run_capture(argv, out, OUT_MAX);
  CHECK_EQ_INT(rc, 0);
  if(rc || !run_fixture(exe, out, OUT_MAX)) {
    free(out);
    return;
  }
  uint64_t addr = output_value(out, "compute");
  CHECK(addr);
  CHECK(runtime_to_vaddr(s, out, addr, path, sizeof(path), &vaddr));
  CHECK(same_file(path, exe));

  memset(&sym, 0, sizeof(sym));
  CHECK(bpi_symbols_resolve(s, exe, NULL, vaddr, &sym));
  CHECK_EQ_STR(sym.name, "symfix::mymod::compute");
  CHECK(ends_with(sym.file, "/symfix.rs"));
  CHECK_EQ_INT(sym.start_line, marker_line(src, "@compute_decl"));

  memset(&sym, 0, sizeof(sym));
  CHECK(bpi_symbols_resolve(raw, exe, NULL, vaddr, &sym));
  if(mangling)
    CHECK(sym.name && !strncmp(sym.name, "_R", 2));
  else
    CHECK(sym.name && (!strncmp(sym.name, "_R", 2) ||
                       !strncmp(sym.name, "_ZN", 3)));
  printf("rust (%s mangling): %s\n", mangling ? mangling : "default",
         sym.name ? sym.name : "(none)");
  free(out);
}

static void test_rust(struct bp_symbols *s, struct bp_symbols *raw)
{
  const char *rustc = getenv("RUSTC");
  if(!rustc || !*rustc) {
    printf("rust: skipped, RUSTC not set\n");
    return;
  }
  rust_case(s, raw, rustc, "v0");
  rust_case(s, raw, rustc, NULL);  /* legacy on stable compilers */
}

/* ------------------------------------------------------ kallsyms and JIT */

static void test_kallsyms(void)
{
  struct bp_symbols_opts opts = { .demangle = true };
  struct bp_symbols *s;
  struct bp_sym sym;
  char path[PATH_MAX];
  join(path, sizeof(path), tmpdir, "kallsyms");
  /* out of order, with data, absolute and module symbols */
  CHECK(write_file(path,
                   "ffffffff81000200 T _RNvCs1234_7mycrate3foo\n"
                   "0000000000000000 A fixed_percpu_data\n"
                   "ffffffff81000000 T _stext\n"
                   "ffffffff81000100 t do_one_thing\n"
                   "ffffffff81000100 T do_one_thing_alias\n"
                   "ffffffff81000300 D some_data\n"
                   "ffffffff81000400 W weak_fn\n"
                   "ffffffffc0001000 t mod_fn\t[mymod]\n"
                   "not a line\n"));
  opts.kallsyms = path;
  CHECK_EQ_INT(bpi_symbols_new(&s, &opts), BP_OK);
  CHECK(bpi_symbols_resolve_kernel(s, 0xffffffff81000150ULL, &sym));
  CHECK_EQ_STR(sym.name, "do_one_thing");
  CHECK(sym.file == NULL && sym.line == 0);
  CHECK(bpi_symbols_resolve_kernel(s, 0xffffffff81000000ULL, &sym));
  CHECK_EQ_STR(sym.name, "_stext");
  /* data symbols do not end the function before them */
  CHECK(bpi_symbols_resolve_kernel(s, 0xffffffff81000350ULL, &sym));
  CHECK_EQ_STR(sym.name, "mycrate::foo");
  CHECK(bpi_symbols_resolve_kernel(s, 0xffffffff81000400ULL, &sym));
  CHECK_EQ_STR(sym.name, "weak_fn");
  CHECK(bpi_symbols_resolve_kernel(s, 0xffffffffc0001010ULL, &sym));
  CHECK_EQ_STR(sym.name, "mod_fn");
  CHECK(!bpi_symbols_resolve_kernel(s, 0xffffffff80000000ULL, &sym));
  CHECK(!bpi_symbols_resolve_kernel(s, 0xffffffffc0100000ULL, &sym));
  bpi_symbols_free(s);

  /* kptr_restrict: every address reads as zero */
  CHECK(write_file(path, "0000000000000000 T _stext\n"
                         "0000000000000000 t do_one_thing\n"));
  CHECK_EQ_INT(bpi_symbols_new(&s, &opts), BP_OK);
  CHECK(!bpi_symbols_resolve_kernel(s, 0, &sym));
  CHECK(!bpi_symbols_resolve_kernel(s, 0xffffffff81000150ULL, &sym));
  bpi_symbols_free(s);

  join(path, sizeof(path), tmpdir, "no-kallsyms");
  CHECK_EQ_INT(bpi_symbols_new(&s, &opts), BP_OK);
  CHECK(!bpi_symbols_resolve_kernel(s, 0xffffffff81000150ULL, &sym));
  bpi_symbols_free(s);
}

/* One symbolizer for several recordings (run --each): kallsyms is read
 * once while it does not change, again when it does; a JIT map is read
 * again in each recording (its pid may be another process's). */
static void test_ranges_across_recordings(void)
{
  struct bp_symbols_opts opts = { .demangle = true, .jit_map_dir = tmpdir };
  struct bp_symbols *s;
  struct bp_symbols_tables t;
  struct bp_sym sym;
  char path[PATH_MAX], map[PATH_MAX];
  join(path, sizeof(path), tmpdir, "kallsyms-rec");
  join(map, sizeof(map), tmpdir, "perf-4343.map");
  CHECK(write_file(path, "ffffffff81000000 T first_fn\n"));
  CHECK(write_file(map, "7f0000001000 100 jit_one\n"));
  opts.kallsyms = path;
  CHECK_EQ_INT(bpi_symbols_new(&s, &opts), BP_OK);
  CHECK(bpi_symbols_resolve_kernel(s, 0xffffffff81000010ULL, &sym));
  CHECK_EQ_STR(sym.name, "first_fn");
  CHECK(bpi_symbols_resolve_jit(s, 4343, 0x7f0000001010ULL, &sym));
  CHECK_EQ_STR(sym.name, "jit_one");
  bpi_symbols_tables(s, &t);
  CHECK_EQ_INT(t.read, 1);
  CHECK_EQ_INT(t.reused, 0);

  /* unchanged: reused, counted once however many lookups */
  CHECK(write_file(map, "7f0000001000 100 jit_two\n"));
  bpi_symbols_begin_recording(s);
  CHECK(bpi_symbols_resolve_kernel(s, 0xffffffff81000010ULL, &sym));
  CHECK(bpi_symbols_resolve_kernel(s, 0xffffffff81000020ULL, &sym));
  CHECK_EQ_STR(sym.name, "first_fn");
  bpi_symbols_tables(s, &t);
  CHECK_EQ_INT(t.read, 0);
  CHECK_EQ_INT(t.reused, 1);
  CHECK(bpi_symbols_resolve_jit(s, 4343, 0x7f0000001010ULL, &sym));
  CHECK_EQ_STR(sym.name, "jit_two");

  /* changed: read again */
  CHECK(write_file(path, "ffffffff81000000 T second_function\n"));
  bpi_symbols_begin_recording(s);
  CHECK(bpi_symbols_resolve_kernel(s, 0xffffffff81000010ULL, &sym));
  CHECK_EQ_STR(sym.name, "second_function");
  bpi_symbols_tables(s, &t);
  CHECK_EQ_INT(t.read, 1);
  CHECK_EQ_INT(t.reused, 0);
  bpi_symbols_free(s);
}

static void test_jit(void)
{
  struct bp_symbols_opts opts = { .demangle = true, .jit_map_dir = tmpdir };
  struct bp_symbols *s;
  struct bp_sym sym;
  char path[PATH_MAX];
  join(path, sizeof(path), tmpdir, "perf-4242.map");
  CHECK(write_file(path,
                   "7f0000001000 100 LazyCompile:~foo /x.js:1\n"
                   "0x7f0000002000 0x80 _ZN2ns3barEv\n"
                   "7f0000000100 10 first\r\n"
                   "7f0000003000 40 old\n"
                   "7f0000003000 40 new\n"
                   "garbage\n"
                   "7f0000004000 0 empty\n"));
  CHECK_EQ_INT(bpi_symbols_new(&s, &opts), BP_OK);
  CHECK(bpi_symbols_resolve_jit(s, 4242, 0x7f0000001050ULL, &sym));
  CHECK_EQ_STR(sym.name, "LazyCompile:~foo /x.js:1");
  CHECK(bpi_symbols_resolve_jit(s, 4242, 0x7f0000001000ULL, &sym));
  CHECK(!bpi_symbols_resolve_jit(s, 4242, 0x7f0000001100ULL, &sym));
  CHECK(bpi_symbols_resolve_jit(s, 4242, 0x7f0000002010ULL, &sym));
  CHECK_EQ_STR(sym.name, "ns::bar()");
  CHECK(bpi_symbols_resolve_jit(s, 4242, 0x7f000000010fULL, &sym));
  CHECK_EQ_STR(sym.name, "first");
  CHECK(bpi_symbols_resolve_jit(s, 4242, 0x7f0000003000ULL, &sym));
  CHECK_EQ_STR(sym.name, "new");
  CHECK(!bpi_symbols_resolve_jit(s, 4242, 0x7f0000004000ULL, &sym));
  CHECK(!bpi_symbols_resolve_jit(s, 4242, 0x100, &sym));
  /* no map for this pid, asked twice (the absence is cached) */
  CHECK(!bpi_symbols_resolve_jit(s, 4243, 0x7f0000001050ULL, &sym));
  CHECK(!bpi_symbols_resolve_jit(s, 4243, 0x7f0000001050ULL, &sym));
  bpi_symbols_free(s);
}

/* ---------------------------------------------------------------- main */

static void remove_tmpdir(void)
{
  static const char *const names[] = {
    "kallsyms", "kallsyms-rec", "perf-4343.map", "perf-4242.map", "symfix_v0", "symfix_default", "lld.elf",
    "exec.elf"
  };
  char path[PATH_MAX];
  for(size_t i = 0; i < BP_ARRAY_LEN(names); i++) {
    join(path, sizeof(path), tmpdir, names[i]);
    unlink(path);
  }
  rmdir(tmpdir);
}

/* PLT stubs: every "<name@plt>:" objdump shows in the fixture resolves to
 * "name@plt", at its first and at a later byte of the stub. */
static void test_plt(struct bp_symbols *s)
{
  char path[PATH_MAX], cmd[PATH_MAX + 64], line[512];
  join(path, sizeof(path), top_builddir, "tests/unit/fixtures/symfix_pie");
  snprintf(cmd, sizeof(cmd), "objdump -d '%s'", path);
  FILE *p = popen(cmd, "r");
  CHECK(p != NULL);
  if(!p)
    return;
  int stubs = 0;
  while(fgets(line, sizeof(line), p)) {
    unsigned long long addr;
    char name[256];
    size_t n;
    /* "<x@plt-0x10>" labels the resolver's entry, which has no target */
    if(sscanf(line, "%llx <%255[^>]>:", &addr, name) != 2 ||
       (n = strlen(name)) < 4 || strcmp(name + n - 4, "@plt") != 0)
      continue;
    struct bp_sym sym;
    for(int off = 0; off < 8; off += 6) {
      bool ok = bpi_symbols_resolve(s, path, NULL, addr + (unsigned)off, &sym);
      if(!ok)
        fprintf(stderr, "plt: %s at 0x%llx unresolved\n", name,
                addr + (unsigned)off);
      CHECK(ok);
      if(ok)
        CHECK_EQ_STR(sym.name, name);
    }
    stubs++;
  }
  pclose(p);
  CHECK(stubs >= 3);  /* printf, fopen, fgets at least */
}

/* The line policy: names always, file:line for the benchmark's own
 * modules only by default (a system library's DWARF costs far more to
 * read than its lines are worth), for none with BP_LINES_NONE. */
static void test_lines(void)
{
  char path[PATH_MAX], dir[PATH_MAX];
  struct bp_symbols_opts own = {.lines = BP_LINES_OWN};
  struct bp_symbols_opts none = {.lines = BP_LINES_NONE};
  struct bp_symbols *s = NULL, *n = NULL;
  struct bp_sym sym;
  char out[OUT_MAX];
  join(dir, sizeof(dir), top_builddir, "tests/unit/fixtures");
  join(path, sizeof(path), dir, "symfix_pie");
  CHECK_EQ_INT(bpi_symbols_new(&s, &own), BP_OK);
  CHECK_EQ_INT(bpi_symbols_new(&n, &none), BP_OK);
  if(!s || !n || !run_fixture(path, out, sizeof(out)))
    goto out;
  uint64_t call = output_value(out, "add_call");
  memset(&sym, 0, sizeof(sym));
  CHECK(bpi_symbols_resolve(n, path, NULL, call, &sym));
  CHECK_EQ_STR(sym.name, "symfix_add");
  CHECK(sym.file == NULL && sym.line == 0 && sym.start_line == 0);
  memset(&sym, 0, sizeof(sym));
  CHECK(bpi_symbols_resolve(s, path, NULL, call, &sym));
  CHECK(ends_with(sym.file, "/symfix.c") && sym.line > 0);

  /* libc: a system library, named but not looked up for lines */
  Dl_info info;
  CHECK(dladdr((void *)(uintptr_t)&getpid, &info) && info.dli_fname);
  if(info.dli_fname && !strncmp(info.dli_fname, "/lib", 4)) {
    uint64_t vaddr = (uint64_t)((uintptr_t)&getpid -
                                (uintptr_t)info.dli_fbase);
    memset(&sym, 0, sizeof(sym));
    CHECK(bpi_symbols_resolve(s, info.dli_fname, NULL, vaddr, &sym));
    CHECK(sym.name && strstr(sym.name, "getpid"));
    CHECK(sym.file == NULL && sym.line == 0);
  }
  else
    CHECK(!"libc is not under /lib or /usr/lib");
out:
  bpi_symbols_free(s);
  bpi_symbols_free(n);
}

/* ------------------------------------- the same functions as libdwfl's */

struct named_start {
  uint64_t addr;
  const char *name;
};

static int named_start_order(const void *a, const void *b)
{
  const struct named_start *x = a, *y = b;
  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Whether name is one of the functions of fns (n, by address) at start,
 * their @VERSION suffixes aside. */
static bool function_named(const struct named_start *fns, size_t n,
                           uint64_t start, const char *name)
{
  size_t lo = 0, hi = n;
  while(lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if(fns[mid].addr < start)
      lo = mid + 1;
    else
      hi = mid;
  }
  for(; lo < n && fns[lo].addr == start; lo++)
    if(!strncmp(fns[lo].name, name, strcspn(fns[lo].name, "@")) &&
       name[strcspn(fns[lo].name, "@")] == '\0')
      return true;
  return false;
}

/* Addresses across libc's code are named by benchprof's own lookup (a
 * binary search among the functions) as by libdwfl's (a scan of the whole
 * table): wherever libdwfl finds a function, benchprof's answer is a
 * function starting at the same address. */
static void test_same_functions_as_libdwfl(struct bp_symbols *s)
{
  void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
  void *fn = libc ? dlsym(libc, "qsort") : NULL;
  Dl_info info;
  char path[PATH_MAX];
  if(!fn || !dladdr(fn, &info) || !realpath(info.dli_fname, path)) {
    printf("  libc.so.6: not found, nothing compared\n");
    CHECK(false);
    if(libc)
      dlclose(libc);
    return;
  }
  dlclose(libc);
  static char *debuginfo_path = NULL;
  static const Dwfl_Callbacks cb = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_build_id_find_debuginfo,
    .debuginfo_path = &debuginfo_path,
  };
  Dwfl *d = dwfl_begin(&cb);
  dwfl_report_begin(d);
  Dwfl_Module *mod = dwfl_report_elf(d, path, path, -1, 0, true);
  dwfl_report_end(d, NULL, NULL);
  int n = mod ? dwfl_module_getsymtab(mod) : -1;
  CHECK(n > 1);
  struct named_start *fns = calloc(n > 0 ? (size_t)n : 1, sizeof(*fns));
  size_t nfns = 0;
  uint64_t lo = UINT64_MAX, hi = 0;
  for(int i = 1; i < n; i++) {
    GElf_Sym sym;
    GElf_Addr addr;
    const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, NULL,
                                               NULL, NULL);
    unsigned type = GELF_ST_TYPE(sym.st_info);
    if(!name || !*name || (type != STT_FUNC && type != STT_GNU_IFUNC) ||
       sym.st_shndx == SHN_UNDEF || !addr)
      continue;
    fns[nfns++] = (struct named_start){addr, name};
    lo = addr < lo ? addr : lo;
    hi = addr + sym.st_size > hi ? addr + sym.st_size : hi;
  }
  qsort(fns, nfns, sizeof(*fns), named_start_order);
  size_t compared = 0, differ = 0;
  uint64_t step = hi > lo ? (hi - lo) / 4000 + 1 : 1;
  for(uint64_t a = lo; a < hi; a += step) {
    GElf_Off off;
    GElf_Sym sym;
    const char *theirs = dwfl_module_addrinfo(mod, a, &off, &sym, NULL, NULL,
                                              NULL);
    unsigned type = theirs ? GELF_ST_TYPE(sym.st_info) : STT_NOTYPE;
    if(!theirs || (type != STT_FUNC && type != STT_GNU_IFUNC))
      continue;  /* no function: both take libdwfl's answer */
    struct bp_sym ours = {0};
    compared++;
    if(!bpi_symbols_resolve(s, path, NULL, a, &ours) ||
       !function_named(fns, nfns, a - off, ours.name)) {
      if(differ++ < 5)
        printf("  %s+%#" PRIx64 ": libdwfl %s, benchprof %s\n", path, a,
               theirs, ours.name ? ours.name : "(none)");
    }
  }
  printf("  %zu libc addresses compared with libdwfl's, %zu differ\n",
         compared, differ);
  CHECK(compared > 1000);
  CHECK_EQ_INT(differ, 0);
  free(fns);
  dwfl_end(d);
}

/* ------------------------------------------------- sorting function starts */

static int fn_start_order(const void *a, const void *b)
{
  const struct fn_start *x = a, *y = b;
  if(x->addr != y->addr)
    return x->addr < y->addr ? -1 : 1;
  return x->sym < y->sym ? -1 : x->sym > y->sym;
}

/* The sort against qsort, on the shapes symbol tables have (entries in
 * symbol index order): random, already sorted, reversed, runs, many
 * aliases at a few addresses (buckets too full for insertion: heap
 * sort), addresses past 2^33 (wide buckets), the whole 64-bit range with
 * 0 and UINT64_MAX, and the smallest sizes. */
static void test_sort_fn_starts(void)
{
  static const size_t sizes[] = {0, 1, 2, 3, 17, 100, 7000, 30000};
  unsigned seed = 12345;
  for(size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
    for(int shape = 0; shape < 7; shape++) {
      size_t n = sizes[si];
      struct fn_start *a = malloc((n + 1) * sizeof(*a));
      struct fn_start *b = malloc((n + 1) * sizeof(*b));
      for(size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        uint64_t r = seed >> 8;
        uint64_t addr = shape == 0 ? r :
                        shape == 1 ? i * 16 :
                        shape == 2 ? (n - i) * 16 :
                        shape == 3 ? (i % 64) * 4096 + i :
                        shape == 4 ? 0x1000 + r % 8 :  /* aliases */
                        shape == 5 ? (r << 12) + 0x555500000000u :
                        /* the whole range, both ends included */
                        i % 3 == 0 ? 0 : i % 3 == 1 ? UINT64_MAX :
                                     r * 0x9e3779b97f4a7c15u;
        a[i] = (struct fn_start){addr, (uint32_t)i, 0};
      }
      if(n)
        memcpy(b, a, n * sizeof(*a));
      bpi_sym_sort_fn_starts(a, n);
      qsort(b, n, sizeof(*b), fn_start_order);
      bool same = true;
      for(size_t i = 0; i < n; i++)
        same = same && a[i].addr == b[i].addr && a[i].sym == b[i].sym;
      if(!same)
        printf("  sort differs: %zu entries, shape %d\n", n, shape);
      CHECK(same);
      free(a);
      free(b);
    }
}

int main(void)
{
  struct bp_symbols_opts opts = { .demangle = true };
  struct bp_symbols_opts raw_opts = { .demangle = false };
  struct bp_symbols *s = NULL, *raw = NULL;
  const char *tmp = getenv("TMPDIR");
  top_srcdir = getenv("top_srcdir");
  top_builddir = getenv("top_builddir");
  if(!top_srcdir)
    top_srcdir = ".";
  if(!top_builddir)
    top_builddir = ".";
  join(tmpdir, sizeof(tmpdir), tmp && *tmp ? tmp : "/tmp",
       "bp-symbols-XXXXXX");
  if(!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }

  test_demangle();
  test_sort_fn_starts();
  CHECK_EQ_INT(bpi_symbols_new(&s, &opts), BP_OK);
  CHECK_EQ_INT(bpi_symbols_new(&raw, &raw_opts), BP_OK);
  if(s && raw) {
    test_c_fixture(s, "symfix_nopie");
    test_c_fixture(s, "symfix_pie");
    test_c_fixture(s, "symfix_split");
    test_no_symbol(s);
    test_build_id(s);
    test_cxx(s, raw);
    test_optimized(s);
    test_shared_library(s);
    test_vaddr_delta(s);
    test_vdso(s);
    test_same_functions_as_libdwfl(s);
    test_bad_files(s);
    test_rust(s, raw);
    test_plt(s);
  }
  bpi_symbols_free(raw);
  bpi_symbols_free(s);
  test_kallsyms();
  test_ranges_across_recordings();
  test_jit();
  test_lines();
  remove_tmpdir();
  return check_exit();
}

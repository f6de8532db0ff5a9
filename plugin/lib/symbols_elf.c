/* symbols_elf: names from a module's ELF tables where the symbol table
 * has none or several for an address: PLT stubs named after their target,
 * stripped code after its .eh_frame function range (fn_START), and the
 * name people write among aliases. */
#include "bp_setup.h"
#include "symbols_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
bool bpi_sym_plt_lookup(struct bp_symbols *s, Dwfl_Module *mod,
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
bool bpi_sym_fde_lookup(struct bp_symbols *s, struct module *m,
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

static void symtab_open(struct symtab *t, Dwfl_Module *mod, int n)
{
  memset(t, 0, sizeof(*t));
  t->mod = mod;
  GElf_Sym sym;
  GElf_Addr addr;
  GElf_Word shndx;
  Elf *elf = NULL;
  Dwarf_Addr bias = 0;
  /* the file libdwfl took its table from, and that file's bias */
  if(n < 2 || !dwfl_module_getsym_info(mod, 1, &sym, &addr, &shndx, &elf,
                                       &bias) || !elf)
    return;
  GElf_Ehdr eh;
  if(!gelf_getehdr(elf, &eh) || (eh.e_type != ET_DYN && eh.e_type != ET_EXEC))
    return;  /* relocatable (a kernel module): addresses need libdwfl */
  Elf_Scn *found = NULL, *xndx = NULL;
  GElf_Shdr sh, fsh = {0};
  for(int pass = 0; pass < 2 && !found; pass++)
    for(Elf_Scn *scn = elf_nextscn(elf, NULL); scn;
        scn = elf_nextscn(elf, scn))
      if(gelf_getshdr(scn, &sh) &&
         sh.sh_type == (pass ? SHT_DYNSYM : SHT_SYMTAB) && sh.sh_entsize) {
        found = scn;
        fsh = sh;
        break;
      }
  for(Elf_Scn *scn = elf_nextscn(elf, NULL); found && scn;
      scn = elf_nextscn(elf, scn))
    if(gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB_SHNDX &&
       sh.sh_link == elf_ndxscn(found))
      xndx = scn;
  /* libdwfl merges tables (an auxiliary .gnu_debugdata one): then its
   * count differs and its indices are its own */
  if(!found || fsh.sh_size / fsh.sh_entsize != (size_t)n)
    return;
  t->syms = elf_getdata(found, NULL);
  t->shndx = xndx ? elf_getdata(xndx, NULL) : NULL;
  t->strtab = fsh.sh_link;
  t->bias = bias;
  t->elf = t->syms ? elf : NULL;
}

/* Entry i: its name (NULL when it has none), address and symbol. */
static const char *symtab_sym(const struct symtab *t, int i, GElf_Addr *addr,
                              GElf_Sym *sym)
{
  if(!t->elf)
    return dwfl_module_getsym_info(t->mod, i, sym, addr, NULL, NULL, NULL);
  GElf_Word xndx;
  if(!gelf_getsymshndx(t->syms, t->shndx, i, sym, &xndx))
    return NULL;
  /* undefined or absolute: no code of this module starts there */
  if(sym->st_shndx == SHN_UNDEF || sym->st_shndx == SHN_ABS || !sym->st_value)
    *addr = 0;
  else
    *addr = sym->st_value + t->bias;
  return elf_strptr(t->elf, t->strtab, sym->st_name);
}

/* Whether sym, found at addr (0: nowhere in this module), is a function
 * with code. */
static bool is_function(const GElf_Sym *sym, GElf_Addr addr)
{
  unsigned type = GELF_ST_TYPE(sym->st_info);
  return addr && sym->st_shndx != SHN_UNDEF &&
         (type == STT_FUNC || type == STT_GNU_IFUNC);
}

/* Whether entry i is a function with code; *addr where it starts. */
static const char *function_at(const struct symtab *t, int i, GElf_Addr *addr,
                               unsigned char *info)
{
  GElf_Sym sym;
  const char *name = symtab_sym(t, i, addr, &sym);
  *info = sym.st_info;
  return name && *name && is_function(&sym, *addr) ? name : NULL;
}

static bool fn_start_less(const struct fn_start *x, const struct fn_start *y)
{
  return x->addr != y->addr ? x->addr < y->addr : x->sym < y->sym;
}

static void fn_start_swap(struct fn_start *a, struct fn_start *b)
{
  struct fn_start t = *a;
  *a = *b;
  *b = t;
}

/* fs[0..n) by heap sort, in place. */
static void heap_sort(struct fn_start *fs, size_t n)
{
  for(size_t end = n, start = n / 2; end > 1;) {
    if(start > 0)
      start--;  /* building the heap */
    else
      fn_start_swap(&fs[0], &fs[--end]);  /* the largest to the end */
    for(size_t root = start, child; (child = 2 * root + 1) < end;
        root = child) {
      if(child + 1 < end && fn_start_less(&fs[child], &fs[child + 1]))
        child++;
      if(!fn_start_less(&fs[root], &fs[child]))
        break;
      fn_start_swap(&fs[root], &fs[child]);
    }
  }
}

/* fs[0..n) by insertion sort: a bucket of a few entries. */
static void insertion_sort(struct fn_start *fs, size_t n)
{
  for(size_t i = 1; i < n; i++) {
    struct fn_start x = fs[i];
    size_t j = i;
    for(; j > 0 && fn_start_less(&x, &fs[j - 1]); j--)
      fs[j] = fs[j - 1];
    fs[j] = x;
  }
}

#define SORT_BUCKETS 2048u
#define SMALL_BUCKET 32u

/* fs, read in symbol index order, sorted by address then index, in place:
 * the entries are moved into at most SORT_BUCKETS equal slices of their
 * address range (a counting pass, then each entry swapped into its
 * slice's next free place), and each slice is sorted on its own (a few
 * entries by insertion; many, as when one address has many aliases, by
 * heap sort).  The order is total, so no stability is needed.  Why in
 * place: the radix sort this replaced needed a second array as large as
 * the table, and on a virtual machine the first touch of fresh memory
 * costs about 10 us a page: for libc's 6,800 functions that array was
 * half of the 1.2 ms a short recording spent on them. */
void bpi_sym_sort_fn_starts(struct fn_start *fs, size_t n)
{
  uint64_t lo = UINT64_MAX, hi = 0;
  bool sorted = true;
  for(size_t i = 0; i < n; i++) {
    lo = fs[i].addr < lo ? fs[i].addr : lo;
    hi = fs[i].addr > hi ? fs[i].addr : hi;
    sorted = sorted && (!i || fn_start_less(&fs[i - 1], &fs[i]));
  }
  if(sorted)
    return;
  if(n > UINT32_MAX) {  /* more than the buckets' counts hold */
    heap_sort(fs, n);
    return;
  }
  unsigned shift = 0;  /* a power of two wide: a shift, not a division */
  while(((hi - lo) >> shift) >= SORT_BUCKETS)
    shift++;
#define BUCKET(e) ((size_t)(((e).addr - lo) >> shift))
  uint32_t start[SORT_BUCKETS + 1] = {0}, next[SORT_BUCKETS];
  for(size_t i = 0; i < n; i++)
    start[BUCKET(fs[i]) + 1]++;
  for(size_t b = 0; b < SORT_BUCKETS; b++) {
    start[b + 1] += start[b];
    next[b] = start[b];
  }
  for(size_t b = 0; b < SORT_BUCKETS; b++)
    while(next[b] < start[b + 1]) {
      struct fn_start x = fs[next[b]];
      for(size_t d = BUCKET(x); d != b; d = BUCKET(x)) {
        struct fn_start t = fs[next[d]];  /* x goes there; t moves on */
        fs[next[d]++] = x;
        x = t;
      }
      fs[next[b]++] = x;
    }
#undef BUCKET
  for(size_t b = 0; b < SORT_BUCKETS; b++) {
    size_t m = start[b + 1] - start[b];
    if(m <= SMALL_BUCKET)
      insertion_sort(fs + start[b], m);
    else
      heap_sort(fs + start[b], m);
  }
}

/* Whether entry i is a function with code, and where it starts and its
 * size: what function_at() says, without looking its name up where the
 * table is read straight from the ELF section (a symbol has a name when
 * st_name is not the string table's empty first entry). */
static bool function_start(const struct symtab *t, int i, GElf_Addr *addr,
                           uint64_t *size)
{
  GElf_Sym sym;
  if(!t->elf) {
    const char *name = symtab_sym(t, i, addr, &sym);
    *size = sym.st_size;
    return name && *name && is_function(&sym, *addr);
  }
  GElf_Word xndx;
  if(!gelf_getsymshndx(t->syms, t->shndx, i, &sym, &xndx) || !sym.st_name ||
     sym.st_shndx == SHN_ABS || !sym.st_value)
    return false;
  *addr = sym.st_value + t->bias;
  *size = sym.st_size;
  return is_function(&sym, *addr);
}

/* Sizes of 0 for the functions that start inside an earlier one's range
 * (a local function in a global one, in hand-written assembly): libdwfl
 * prefers global symbols to nearer local ones there, so those addresses
 * are left to it (bpi_sym_function_at()). */
static void mark_nested(struct fn_start *fs, size_t n)
{
  uint64_t reach = 0;  /* where the functions before end, at most */
  for(size_t i = 0, j; i < n; i = j) {
    uint64_t end = fs[i].addr;
    for(j = i; j < n && fs[j].addr == fs[i].addr; j++)
      if(fs[j].addr + fs[j].size > end)
        end = fs[j].addr + fs[j].size;
    if(fs[i].addr < reach)
      for(size_t q = i; q < j; q++)
        fs[q].size = 0;
    if(end > reach)
      reach = end;
  }
}

/* m->fn_starts, once per module: the functions of the symbol table sorted
 * by address, in one pass into room for every entry (only the pages the
 * functions fill are touched; fresh memory is most of the cost here),
 * given back beyond them.  Left empty when out of memory: no alias is
 * then chosen. */
static void read_fn_starts(struct module *m)
{
  int n = dwfl_module_getsymtab(m->mod);
  const struct symtab *t = &m->symtab;
  GElf_Addr addr;
  uint64_t size;
  m->fn_starts_read = true;
  if(n < 2)
    return;
  symtab_open(&m->symtab, m->mod, n);
  struct fn_start *fs = malloc((size_t)n * sizeof(*fs));
  if(!fs)
    return;
  size_t k = 0;
  for(int i = 1; i < n; i++)
    if(function_start(t, i, &addr, &size))
      fs[k++] = (struct fn_start){
        addr, (uint32_t)i, size > UINT32_MAX ? UINT32_MAX : (uint32_t)size};
  if(!k) {
    free(fs);
    return;
  }
  struct fn_start *fit = realloc(fs, k * sizeof(*fs));
  fs = fit ? fit : fs;
  bpi_sym_sort_fn_starts(fs, k);
  mark_nested(fs, k);
  m->fn_starts = fs;
  m->nfn_starts = k;
}

/* The first of m->fn_starts at or after addr. */
static size_t fn_starts_at(const struct module *m, uint64_t addr)
{
  size_t lo = 0, hi = m->nfn_starts;
  while(lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if(m->fn_starts[mid].addr < addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The name people write for the function starting at start, when several
 * start there (the best by alias_rank; the lowest symbol index among
 * equals); NULL when one does (or it cannot be told).  Each address's
 * choice is kept in s->alias_of. */
const char *bpi_sym_alias_name(struct bp_symbols *s, uint32_t id,
                               uint64_t start)
{
  struct module *m = &s->mods[id];
  uint32_t sid = bpi_map_get(&s->alias_of, id, start);
  if(sid != BP_NONE)
    return bpi_strtab_get(&s->strs, sid);
  if(!m->fn_starts_read)
    read_fn_starts(m);
  size_t i = fn_starts_at(m, start);
  if(i + 1 >= m->nfn_starts || m->fn_starts[i].addr != start ||
     m->fn_starts[i + 1].addr != start)
    return NULL;
  const char *best = NULL;
  uint64_t best_rank = UINT64_MAX;
  for(; i < m->nfn_starts && m->fn_starts[i].addr == start; i++) {
    GElf_Addr addr;
    unsigned char info;
    const char *name = function_at(&m->symtab, (int)m->fn_starts[i].sym,
                                   &addr, &info);
    uint64_t rank = name ? alias_rank(name, GELF_ST_BIND(info)) : UINT64_MAX;
    if(rank < best_rank) {
      best = name;
      best_rank = rank;
    }
  }
  sid = best ? bpi_strtab_intern(&s->strs, best) : BP_NONE;
  if(sid == BP_NONE || bpi_map_put(&s->alias_of, id, start, sid))
    return NULL;
  return bpi_strtab_get(&s->strs, sid);
}

/* The function whose range holds vaddr, found by binary search in
 * m->fn_starts: its name as the table has it, and where it starts (in
 * *start).  NULL when the nearest function start at or below vaddr does
 * not hold it (a symbol without a size, code between functions, a
 * function nested in another: mark_nested()); libdwfl's lookup decides
 * those.  Why: libdwfl scans the whole symbol table for every address,
 * 0.15 to 0.25 ms for each distinct address in libc's 10,000 symbols
 * here, milliseconds in a large C++ program's.  Only functions are looked
 * at (as perf does), so a label or object inside a function no longer
 * names it. */
const char *bpi_sym_function_at(struct bp_symbols *s, uint32_t id,
                                uint64_t vaddr, uint64_t *start)
{
  struct module *m = &s->mods[id];
  if(!m->fn_starts_read)
    read_fn_starts(m);
  size_t i = vaddr < UINT64_MAX ? fn_starts_at(m, vaddr + 1) : 0;
  if(!i)
    return NULL;
  uint64_t at = m->fn_starts[i - 1].addr;
  for(; i > 0 && m->fn_starts[i - 1].addr == at; i--) {
    if(vaddr - at >= m->fn_starts[i - 1].size)
      continue;
    GElf_Addr addr;
    GElf_Sym sym;
    const char *name = symtab_sym(&m->symtab, (int)m->fn_starts[i - 1].sym,
                                  &addr, &sym);
    if(name && *name && addr == at) {
      *start = at;
      return name;
    }
  }
  return NULL;
}

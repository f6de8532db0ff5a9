/* symbols_dwarf: from a module's DWARF, the line where a function is
 * declared and the chain of calls inlined at an address (each compilation
 * unit's function scopes read once, then searched per address). */
#include "bp_setup.h"
#include "symbols_int.h"

#include <dwarf.h>

/* Whether addr (a DWARF address) is in one of cu's ranges; a unit that
 * states none is taken to hold it. */
static bool cu_holds(Dwarf_Die *cu, Dwarf_Addr addr)
{
  Dwarf_Addr base, lo, hi;
  ptrdiff_t off = 0;
  bool any = false;
  while((off = dwarf_ranges(cu, off, &base, &lo, &hi)) > 0) {
    if(addr >= lo && addr < hi)
      return true;
    any = true;
  }
  return !any;
}

/* libdwfl finds the unit of an address by its address ranges with the
 * gaps between a unit's ranges closed, and then the last line row at or
 * before it.  After a unit's last function comes code with no DWARF
 * (crt1's _start after a main in .text.startup), and a line sequence may
 * end with a row at the very address of its end: libdw sorts that row
 * after the end, so the code after it took the row's file and line
 * (_start at std_thread.h:142).  A row applies to the code of its unit
 * only. */
Dwfl_Line *bpi_sym_line_at(Dwfl_Module *mod, uint64_t vaddr)
{
  Dwarf_Addr bias;
  Dwarf_Die *cu = dwfl_module_addrdie(mod, vaddr, &bias);
  if(!cu || !cu_holds(cu, vaddr - bias))
    return NULL;
  return dwfl_module_getsrc(mod, vaddr);
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
    Dwfl_Line *l = bpi_sym_line_at(mod, start);
    if(!l || !dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL))
      line = 0;
  }
  return line > 0 ? (uint32_t)line : 0;
}

/* decl_line, once per function of a module: addresses share functions. */
uint32_t bpi_sym_start_line(struct bp_symbols *s, uint32_t id,
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

/* The name of a DW_TAG_inlined_subroutine of cu in module id (from its
 * abstract origin): the linkage name demangled, so it reads like the
 * symbol table's names; without one (a static C++ function, one in an
 * anonymous namespace), the name its namespaces, classes and parameters
 * make, as the demangler would write it; else DW_AT_name.  BP_NONE when
 * it has none or memory ran out. */
static uint32_t inlined_name(struct bp_symbols *s, uint32_t id,
                             Dwarf_Die *cu, Dwarf_Die *die)
{
  Dwarf_Attribute attr;
  const char *name = NULL;
  if(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
     dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
    name = dwarf_formstring(&attr);
  if(!name || !*name) {
    uint32_t built = bpi_sym_cxx_name(s, id, cu, die);
    if(built != BP_NONE)
      return built;
    name = dwarf_diename(die);
  }
  if(!name || !*name)
    return BP_NONE;
  return bpi_sym_intern_name(s, name);
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
bool bpi_sym_inline_chain(struct bp_symbols *s, uint32_t id,
                          Dwfl_Module *mod, uint64_t vaddr,
                          struct result *r)
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
    in->name = inlined_name(s, id, &c->cu, die);
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

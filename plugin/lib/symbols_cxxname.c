/* symbols_cxxname: the name of a C++ function that DWARF gives without a
 * linkage name (a static function, one in an anonymous namespace, a
 * member of a class in one), built as the demangler writes the names of
 * the symbol table, so an inlined call reads like an out-of-line copy of
 * the same function: "app::detail::inl(long)", "(anonymous
 * namespace)::Widget::poke(char const*) const".  The scopes come from the
 * parents of the DIE where the function is declared, as llvm-symbolizer
 * finds them; the parameters from its DW_TAG_formal_parameter children.
 * A parameter type this cannot spell leaves the parameter list out. */
#include "bp_setup.h"
#include "symbols_int.h"
#include "buf.h"

#include <dwarf.h>
#include <string.h>

/* nesting followed at most: abstract origins, specifications, types */
#define MAX_HOPS 16

/* DW_LANG_C_plus_plus_17 and _20 (DWARF 5), for a dwarf.h without them */
#define LANG_CXX17 0x002a
#define LANG_CXX20 0x002b

static bool is_cxx(Dwarf_Die *cu)
{
  int lang = dwarf_srclang(cu);
  return lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
         lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14 ||
         lang == LANG_CXX17 || lang == LANG_CXX20;
}

/* The DIE die's attribute at refers to, in *out; false when none. */
static bool ref_die(Dwarf_Die *die, unsigned int at, Dwarf_Die *out)
{
  Dwarf_Attribute attr;
  return dwarf_attr(die, at, &attr) && dwarf_formref_die(&attr, out);
}

/* Where the function of die is declared: its abstract origin's, then
 * their specification's, DIE (the one nested in its namespaces and
 * classes, with the parameters' types). */
static void declaration_of(Dwarf_Die *die, Dwarf_Die *out)
{
  *out = *die;
  for(int i = 0; i < MAX_HOPS; i++)
    if(!ref_die(out, DW_AT_abstract_origin, out) &&
       !ref_die(out, DW_AT_specification, out))
      break;
}

/* The spelling of a base type as the demangler writes it: GCC names
 * "long" "long int" and "unsigned long" "long unsigned int". */
static const char *base_type_name(const char *dwarf_name)
{
  static const char *const spelled[][2] = {
    {"long int", "long"},
    {"long unsigned int", "unsigned long"},
    {"short int", "short"},
    {"short unsigned int", "unsigned short"},
    {"long long int", "long long"},
    {"long long unsigned int", "unsigned long long"},
    {"__int128 unsigned", "unsigned __int128"},
  };
  for(size_t i = 0; i < BP_ARRAY_LEN(spelled); i++)
    if(!strcmp(dwarf_name, spelled[i][0]))
      return spelled[i][1];
  return dwarf_name;
}

/* The namespaces and classes around die, outermost first, each followed
 * by "::".  false when one has no name that can be written (a class
 * without a name, a function's local scope). */
static bool add_scopes(struct bp_buf *b, Dwarf_Die *die)
{
  Dwarf_Die *scopes = NULL;
  int n = dwarf_getscopes_die(die, &scopes);
  bool ok = n > 0;
  /* scopes[0] is die itself, scopes[n - 1] its compilation unit */
  for(int i = n - 2; ok && i >= 1; i--) {
    const char *name = dwarf_diename(&scopes[i]);
    switch(dwarf_tag(&scopes[i])) {
    case DW_TAG_namespace:
      bpi_buf_adds(b, name && *name ? name : "(anonymous namespace)");
      break;
    case DW_TAG_class_type:
    case DW_TAG_structure_type:
    case DW_TAG_union_type:
    case DW_TAG_enumeration_type:
      ok = name && *name;
      if(ok)
        bpi_buf_adds(b, name);
      break;
    default:
      ok = false;
      break;
    }
    bpi_buf_adds(b, "::");
  }
  free(scopes);
  return ok;
}

static bool add_type(struct bp_buf *b, Dwarf_Die *type, int hops);

/* The type die refers to (DW_AT_type), "void" when it has none. */
static bool add_type_of(struct bp_buf *b, Dwarf_Die *die, int hops)
{
  Dwarf_Die t;
  if(!ref_die(die, DW_AT_type, &t)) {
    bpi_buf_adds(b, "void");
    return true;
  }
  return add_type(b, &t, hops + 1);
}

/* type as the demangler writes it: typedefs resolved (mangled names know
 * the types, not their aliases), qualifiers after what they qualify
 * ("char const*").  false for what this does not spell (arrays, function
 * and member pointers, unnamed types). */
static bool add_type(struct bp_buf *b, Dwarf_Die *type, int hops)
{
  const char *name = dwarf_diename(type);
  if(hops > MAX_HOPS)
    return false;
  switch(dwarf_tag(type)) {
  case DW_TAG_base_type:
    if(!name)
      return false;
    bpi_buf_adds(b, base_type_name(name));
    return true;
  case DW_TAG_typedef:
    return add_type_of(b, type, hops);
  case DW_TAG_class_type:
  case DW_TAG_structure_type:
  case DW_TAG_union_type:
  case DW_TAG_enumeration_type:
    if(!name || !*name || !add_scopes(b, type))
      return false;
    bpi_buf_adds(b, name);
    return true;
  case DW_TAG_pointer_type:
    return add_type_of(b, type, hops) && (bpi_buf_addc(b, '*'), true);
  case DW_TAG_reference_type:
    return add_type_of(b, type, hops) && (bpi_buf_addc(b, '&'), true);
  case DW_TAG_rvalue_reference_type:
    return add_type_of(b, type, hops) && (bpi_buf_adds(b, "&&"), true);
  case DW_TAG_const_type:
    return add_type_of(b, type, hops) && (bpi_buf_adds(b, " const"), true);
  case DW_TAG_volatile_type:
    return add_type_of(b, type, hops) &&
           (bpi_buf_adds(b, " volatile"), true);
  default:
    return false;
  }
}

/* A parameter's type without its top-level const and volatile, which are
 * no part of a function's signature. */
static bool add_param_type(struct bp_buf *b, Dwarf_Die *param)
{
  Dwarf_Die t;
  if(!ref_die(param, DW_AT_type, &t))
    return false;
  for(int i = 0; i < MAX_HOPS; i++) {
    int tag = dwarf_tag(&t);
    if(tag != DW_TAG_const_type && tag != DW_TAG_volatile_type)
      break;
    if(!ref_die(&t, DW_AT_type, &t))
      return false;
  }
  return add_type(b, &t, 0);
}

/* Whether the artificial parameter this points to a const object: a
 * const member function. */
static bool this_is_const(Dwarf_Die *param)
{
  Dwarf_Die ptr, obj;
  return ref_die(param, DW_AT_type, &ptr) &&
         dwarf_tag(&ptr) == DW_TAG_pointer_type &&
         ref_die(&ptr, DW_AT_type, &obj) &&
         dwarf_tag(&obj) == DW_TAG_const_type;
}

/* "(long, char const*)" and " const" for a const member function, from
 * the children of the declaration decl.  false when a type cannot be
 * written. */
static bool add_params(struct bp_buf *b, Dwarf_Die *decl)
{
  Dwarf_Die child;
  bool first = true, is_const = false;
  bpi_buf_addc(b, '(');
  if(dwarf_child(decl, &child) == 0) {
    do {
      int tag = dwarf_tag(&child);
      if(tag == DW_TAG_formal_parameter && dwarf_hasattr(&child,
                                                          DW_AT_artificial)) {
        is_const = this_is_const(&child);
        continue;
      }
      if(tag != DW_TAG_formal_parameter && tag != DW_TAG_unspecified_parameters)
        continue;
      if(!first)
        bpi_buf_adds(b, ", ");
      first = false;
      if(tag == DW_TAG_unspecified_parameters)
        bpi_buf_adds(b, "...");
      else if(!add_param_type(b, &child))
        return false;
    } while(dwarf_siblingof(&child, &child) == 0);
  }
  bpi_buf_addc(b, ')');
  if(is_const)
    bpi_buf_adds(b, " const");
  return true;
}

/* Whether decl is a template's instance: the demangler writes their
 * return type first. */
static bool is_template_instance(Dwarf_Die *decl)
{
  Dwarf_Die child;
  if(dwarf_child(decl, &child) != 0)
    return false;
  do {
    int tag = dwarf_tag(&child);
    if(tag == DW_TAG_template_type_parameter ||
       tag == DW_TAG_template_value_parameter)
      return true;
  } while(dwarf_siblingof(&child, &child) == 0);
  return false;
}

/* The qualified name, with its parameters when they can be written, of
 * decl (called name) into b; false when its scopes cannot be. */
static bool build_name(struct bp_buf *b, Dwarf_Die *decl, const char *name)
{
  size_t start = b->len;
  if(is_template_instance(decl)) {
    if(!add_type_of(b, decl, 0))
      return false;
    bpi_buf_addc(b, ' ');
  }
  size_t scoped = b->len;
  if(!add_scopes(b, decl))
    return false;
  bpi_buf_adds(b, name);
  size_t bare = b->len;
  if(!add_params(b, decl)) {
    if(scoped != start)  /* the return type alone would mislead */
      return false;
    b->len = bare;  /* the name without them */
  }
  return !bpi_buf_failed(b);
}

uint32_t bpi_sym_cxx_name(struct bp_symbols *s, uint32_t id, Dwarf_Die *cu,
                          Dwarf_Die *die)
{
  Dwarf_Die decl;
  const char *name;
  if(!cu || !is_cxx(cu))
    return BP_NONE;
  declaration_of(die, &decl);
  name = dwarf_diename(&decl);
  if(!name || !*name)
    return BP_NONE;
  Dwarf_Off off = dwarf_dieoffset(&decl);
  uint32_t got = bpi_map_get(&s->cxx_name_of, id, off);
  if(got != BP_NONE)
    return got;
  struct bp_buf b;
  bpi_buf_init(&b);
  uint32_t out = BP_NONE;
  if(build_name(&b, &decl, name)) {
    bpi_buf_addc(&b, '\0');
    if(!bpi_buf_failed(&b))
      out = bpi_strtab_intern(&s->strs, b.data);
  }
  bpi_buf_cleanup(&b);
  /* failing to cache only costs building it again */
  if(out != BP_NONE)
    (void)bpi_map_put(&s->cxx_name_of, id, off, out);
  return out;
}

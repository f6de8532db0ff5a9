/* symbols_cxxname: the name of a C++ function that DWARF gives without a
 * linkage name (a static function, one in an anonymous namespace, a
 * member of a class in one), built as the demangler writes the names of
 * the symbol table, so an inlined call reads like an out-of-line copy of
 * the same function: "app::detail::inl(long)", "(anonymous
 * namespace)::Widget::poke(char const*) const".  The scopes come from the
 * parents of the DIE where the function is declared, as llvm-symbolizer
 * finds them; the parameters from its DW_TAG_formal_parameter children;
 * a template's arguments from its DW_TAG_template_*_param children, as
 * the demangler spells them ("tw<unsigned long>", where GCC's DW_AT_name
 * says "tw<long unsigned int>").  A parameter type this cannot spell
 * leaves the parameter list out; template arguments it cannot spell are
 * left as DW_AT_name gives them. */
#include "bp_setup.h"
#include "symbols_int.h"
#include "buf.h"

#include <dwarf.h>
#include <inttypes.h>
#include <string.h>

/* nesting followed at most: abstract origins, specifications, types */
#define MAX_HOPS 16

/* longest name built; a longer one (or odd DWARF making one) is not, and
 * the caller uses DW_AT_name */
#define MAX_NAME_LEN 4096

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

static void add_name(struct bp_buf *b, Dwarf_Die *die, const char *name,
                     int hops);

/* The namespaces and classes around die, outermost first, each followed
 * by "::".  false when one has no name that can be written (a class
 * without a name, a function's local scope). */
static bool add_scopes(struct bp_buf *b, Dwarf_Die *die, int hops)
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
        add_name(b, &scopes[i], name, hops + 1);
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
  if(hops > MAX_HOPS || b->len > MAX_NAME_LEN)
    return false;
  switch(dwarf_tag(type)) {
  case DW_TAG_base_type:
    if(!name || !*name)
      return false;
    bpi_buf_adds(b, base_type_name(name));
    return true;
  case DW_TAG_typedef:
    return add_type_of(b, type, hops);
  case DW_TAG_class_type:
  case DW_TAG_structure_type:
  case DW_TAG_union_type:
  case DW_TAG_enumeration_type:
    if(!name || !*name || !add_scopes(b, type, hops))
      return false;
    add_name(b, type, name, hops);
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

/* The children of a template's instance that stand for its arguments. */
static bool is_template_param(int tag)
{
  return tag == DW_TAG_template_type_parameter ||
         tag == DW_TAG_template_value_parameter ||
         tag == DW_TAG_GNU_template_template_param ||
         tag == DW_TAG_GNU_template_parameter_pack;
}

/* Whether die (a function, a class) is a template's instance. */
static bool is_template_instance(Dwarf_Die *die)
{
  Dwarf_Die child;
  if(dwarf_child(die, &child) != 0)
    return false;
  do {
    if(is_template_param(dwarf_tag(&child)))
      return true;
  } while(dwarf_siblingof(&child, &child) == 0);
  return false;
}

/* *type without its typedefs, const and volatile; false when that leaves
 * nothing. */
static bool strip_to_underlying(Dwarf_Die *type)
{
  for(int i = 0; i < MAX_HOPS; i++) {
    int tag = dwarf_tag(type);
    if(tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
       tag != DW_TAG_volatile_type)
      return true;
    if(!ref_die(type, DW_AT_type, type))
      return false;
  }
  return false;
}

/* Whether the integers of type (a base type, an enumeration) are signed,
 * in *is_signed; false for what is not an integer. */
static bool integer_signedness(Dwarf_Die *type, bool *is_signed)
{
  Dwarf_Die base = *type;
  Dwarf_Attribute attr;
  Dwarf_Word enc;
  if(dwarf_tag(&base) == DW_TAG_enumeration_type &&
     (!ref_die(&base, DW_AT_type, &base) || !strip_to_underlying(&base)))
    return false;
  if(dwarf_tag(&base) != DW_TAG_base_type ||
     !dwarf_attr(&base, DW_AT_encoding, &attr) ||
     dwarf_formudata(&attr, &enc) != 0)
    return false;
  switch(enc) {
  case DW_ATE_signed:
  case DW_ATE_signed_char:
    *is_signed = true;
    return true;
  case DW_ATE_unsigned:
  case DW_ATE_unsigned_char:
  case DW_ATE_boolean:
  case DW_ATE_UTF:
    *is_signed = false;
    return true;
  default:
    return false;
  }
}

/* The suffix the demangler writes after an integer of base type name
 * ("5ul"); NULL for the types it writes as "(short)5". */
static const char *literal_suffix(const char *name)
{
  static const char *const suffixes[][2] = {
    {"int", ""}, {"unsigned int", "u"}, {"long", "l"},
    {"unsigned long", "ul"}, {"long long", "ll"},
    {"unsigned long long", "ull"},
  };
  for(size_t i = 0; i < BP_ARRAY_LEN(suffixes); i++)
    if(!strcmp(name, suffixes[i][0]))
      return suffixes[i][1];
  return NULL;
}

/* The argument of a template's value parameter as the demangler writes
 * it: "3", "-4l", "5u", "6ul", "true", "(char)65", "(app::Color)1".
 * false for what this does not spell (pointers, floating point, values
 * wider than 64 bits, values DWARF gives no constant for). */
static bool add_value_arg(struct bp_buf *b, Dwarf_Die *param, int hops)
{
  Dwarf_Die type;
  Dwarf_Attribute attr;
  Dwarf_Word raw;
  bool is_signed;
  if(!ref_die(param, DW_AT_type, &type) || !strip_to_underlying(&type) ||
     !integer_signedness(&type, &is_signed) ||
     !dwarf_attr(param, DW_AT_const_value, &attr) ||
     dwarf_formudata(&attr, &raw) != 0)
    return false;
  int size = dwarf_bytesize(&type);
  if(size <= 0 || size > 8)
    return false;
  /* to the type's width: a data form holds it unextended, sdata extended */
  unsigned bits = 8u * (unsigned)size;
  if(bits < 64) {
    raw &= (UINT64_C(1) << bits) - 1;
    if(is_signed && (raw >> (bits - 1)) & 1)
      raw |= ~((UINT64_C(1) << bits) - 1);
  }
  bool negative = is_signed && (int64_t)raw < 0;
  uint64_t magnitude = negative ? -raw : raw;
  const char *name = dwarf_diename(&type);
  const char *base = name ? base_type_name(name) : NULL;
  const char *suffix = NULL;
  if(dwarf_tag(&type) == DW_TAG_base_type && base) {
    if(!strcmp(base, "bool") && raw <= 1) {
      bpi_buf_adds(b, raw ? "true" : "false");
      return true;
    }
    suffix = literal_suffix(base);
  }
  if(!suffix) {  /* "(short)-7" */
    bpi_buf_addc(b, '(');
    if(!add_type(b, &type, hops + 1))
      return false;
    bpi_buf_addc(b, ')');
  }
  if(negative)
    bpi_buf_addc(b, '-');
  bpi_buf_u64(b, magnitude);
  if(suffix)
    bpi_buf_adds(b, suffix);
  return true;
}

static bool add_template_args(struct bp_buf *b, Dwarf_Die *die, int hops,
                              bool in_pack);

/* One argument of a template (a parameter pack: its arguments; a pack
 * holds no pack, so odd DWARF nesting them cannot make this go on
 * without writing). */
static bool add_template_arg(struct bp_buf *b, Dwarf_Die *param, int hops,
                             bool in_pack)
{
  switch(dwarf_tag(param)) {
  case DW_TAG_template_type_parameter:
    return add_type_of(b, param, hops);  /* "void": no DW_AT_type */
  case DW_TAG_template_value_parameter:
    return add_value_arg(b, param, hops);
  case DW_TAG_GNU_template_parameter_pack:
    return !in_pack && add_template_args(b, param, hops + 1, true);
  default:
    return false;
  }
}

/* The arguments of the template die is an instance of, separated by ", "
 * as the demangler separates them: an empty pack at the end leaves no
 * comma, one before others does ("f<, int>").  false when one cannot be
 * spelled. */
static bool add_template_args(struct bp_buf *b, Dwarf_Die *die, int hops,
                              bool in_pack)
{
  Dwarf_Die child;
  bool first = true;
  /* where the empty arguments at the end begin, their commas included */
  size_t trailing_empty = SIZE_MAX;
  if(hops > MAX_HOPS)
    return false;
  if(dwarf_child(die, &child) != 0)
    return true;
  do {
    if(!is_template_param(dwarf_tag(&child)))
      continue;
    size_t before = b->len;
    if(!first)
      bpi_buf_adds(b, ", ");
    size_t at = b->len;
    if(!add_template_arg(b, &child, hops, in_pack))
      return false;
    if(b->len != at)
      trailing_empty = SIZE_MAX;
    else if(!first && trailing_empty == SIZE_MAX)
      trailing_empty = before;
    first = false;
  } while(dwarf_siblingof(&child, &child) == 0);
  if(trailing_empty != SIZE_MAX)
    b->len = trailing_empty;
  return true;
}

/* How long name is without the template arguments GCC writes at its end
 * ("tw" of "tw<long unsigned int>", "operator<" of "operator< <int>");
 * 0 when it has none that this can find. */
static size_t template_base_len(const char *name)
{
  size_t n = strlen(name), i = 0;
  if(!n || name[n - 1] != '>')
    return 0;
  if(!strncmp(name, "operator", 8)) {
    /* the operator's own '<' and '>': the arguments' '<' is the one
     * matching the last '>' */
    int depth = 0;
    for(i = n; i-- > 8;)
      if(name[i] == '>')
        depth++;
      else if(name[i] == '<' && --depth == 0)
        break;
    if(i <= 8 || depth != 0)
      return 0;
  } else {
    while(name[i] && name[i] != '<' && name[i] != ' ' && name[i] != '(')
      i++;
    if(name[i] != '<')
      return 0;
  }
  while(i > 0 && name[i - 1] == ' ')
    i--;
  return i;
}

static char last_char(const struct bp_buf *b)
{
  return b->len && !bpi_buf_failed(b) ? b->data[b->len - 1] : '\0';
}

/* name, the DW_AT_name of die, as the demangler writes it: a template's
 * instance with its arguments spelled from die's children ("Box<short>"
 * for GCC's "Box<short int>"); name as it is when they cannot be. */
static void add_name(struct bp_buf *b, Dwarf_Die *die, const char *name,
                     int hops)
{
  size_t base_len = template_base_len(name), mark = b->len;
  if(base_len && is_template_instance(die)) {
    bpi_buf_add(b, name, base_len);
    if(last_char(b) == '<')  /* "operator< <int>" */
      bpi_buf_addc(b, ' ');
    bpi_buf_addc(b, '<');
    if(add_template_args(b, die, hops + 1, false)) {
      if(last_char(b) == '>')  /* "Box<Box<int> >" */
        bpi_buf_addc(b, ' ');
      bpi_buf_addc(b, '>');
      return;
    }
    b->len = mark;
  }
  bpi_buf_adds(b, name);
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

/* Whether function decl, called name, is a constructor: named as the
 * class it is in (without template arguments). */
static bool is_constructor(Dwarf_Die *decl, const char *name)
{
  Dwarf_Die *scopes = NULL;
  int n = dwarf_getscopes_die(decl, &scopes);
  bool is = false;
  if(n > 1) {
    int tag = dwarf_tag(&scopes[1]);
    const char *cls = dwarf_diename(&scopes[1]);
    if(cls && (tag == DW_TAG_class_type || tag == DW_TAG_structure_type ||
               tag == DW_TAG_union_type)) {
      size_t fn_len = template_base_len(name);
      size_t cls_len = template_base_len(cls);
      fn_len = fn_len ? fn_len : strlen(name);
      cls_len = cls_len ? cls_len : strlen(cls);
      is = fn_len == cls_len && !strncmp(name, cls, fn_len);
    }
  }
  free(scopes);
  return is;
}

/* The qualified name, with its parameters when they can be written, of
 * decl (called name) into b; false when its scopes cannot be.  The
 * demangler writes a function template's return type first (not a
 * constructor's, which has none). */
static bool build_name(struct bp_buf *b, Dwarf_Die *decl, const char *name)
{
  size_t start = b->len;
  if(is_template_instance(decl) && !is_constructor(decl, name)) {
    if(!add_type_of(b, decl, 0))
      return false;
    bpi_buf_addc(b, ' ');
  }
  size_t scoped = b->len;
  if(!add_scopes(b, decl, 0))
    return false;
  add_name(b, decl, name, 0);
  size_t bare = b->len;
  if(!add_params(b, decl)) {
    if(scoped != start)  /* the return type alone would mislead */
      return false;
    b->len = bare;  /* the name without them */
  }
  return !bpi_buf_failed(b) && b->len <= MAX_NAME_LEN;
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

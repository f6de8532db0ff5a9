/* config_int: what the configuration's files share (config.c: the key
 * table and the struct's life; config_parse.c: the file; config_env.c:
 * the overrides; config_show.c: `config show`).  Internal to them. */
#ifndef BP_LIB_CONFIG_INT_H
#define BP_LIB_CONFIG_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "config.h"

enum kind {
  K_OBJ,        /* an object of further keys */
  K_BOOL,
  K_STR,        /* a non-empty string */
  K_STORE_URL,  /* file://, s3://, http:// or https:// */
  K_HTTP_URL,   /* http:// or https:// */
  K_ENVNAME,    /* the name of an environment variable */
  K_SECRET,     /* a non-empty string never shown */
  K_U64,        /* a whole number in [min, max]; 0 when unset */
  K_UINT,       /* the same, stored as unsigned */
  K_MS,         /* seconds in the file, milliseconds in the struct */
  K_NUMBER,     /* any number in [min, max], stored as double */
  K_CALL_GRAPH, /* fp | dwarf[,BYTES] | auto | lbr */
  K_COUNTERS,   /* a list of event names, or false */
  K_SUITE,      /* a suite's name (bpi_suite_valid) */
  K_WALL_TIME,  /* "separate" or "regression" (comment.wall_time_only) */
};

struct key {
  const char *path;   /* "record.frequency" */
  enum kind kind;
  size_t off;         /* of the field in struct bp_config */
  double min, max;
  const char *env;    /* the variable that overrides it, or NULL */
};

#define F(member) offsetof(struct bp_config, member)

/* Every key of the file, objects before their keys (config.c). */
extern const struct key bpi_config_keys[];
extern const unsigned bpi_config_nkeys;

/* The key at path ("record.frequency"); bpi_config_nkeys when none. */
unsigned bpi_config_key_index(const char *path);
/* The key of the field at off of that kind; bpi_config_nkeys when none. */
unsigned bpi_config_key_of(size_t off, enum kind kind);

static inline char **str_field(struct bp_config *c, const struct key *k)
{
  return (char **)(void *)((char *)c + k->off);
}

static inline void *field(struct bp_config *c, const struct key *k)
{
  return (char *)c + k->off;
}

static inline const void *cfield(const struct bp_config *c,
                                 const struct key *k)
{
  return (const char *)c + k->off;
}

/* The part after the last '.'. */
static inline const char *leaf(const char *path)
{
  const char *dot = strrchr(path, '.');
  return dot ? dot + 1 : path;
}

/* Whether key path is directly inside the object parent ("" the root). */
static inline bool is_child(const char *path, const char *parent)
{
  size_t n = strlen(parent);
  if(!n)
    return !strchr(path, '.');
  return !strncmp(path, parent, n) && path[n] == '.' &&
         !strchr(path + n + 1, '.');
}

/* *dst = a copy of s (NULL for none), the old value freed; BPE_NOMEM. */
bp_code bpi_config_set_str(char **dst, const char *s);
/* dst = a deep copy of src. */
bp_code bpi_config_copy(struct bp_config *dst, const struct bp_config *src);

/* Where a value came from: a file and a JSON path, or a variable. */
struct where {
  const char *origin;  /* file name or variable name */
  const char *path;    /* JSON path without "$."; NULL for a variable */
  const char *raw;     /* a variable's value as given */
};

/* A parse (of the file or of the environment) in progress. */
struct parse {
  struct bp_config *c;
  struct bp_err *err;
  uint64_t given;      /* keys this document or environment set */
};

/* Store j (or a variable's value converted to JSON) in the field of the
 * key at idx, checked as that key says (config_parse.c). */
bp_code bpi_config_set_value(struct parse *ps, unsigned idx,
                             const struct where *w, const cJSON *j);
/* Keys that only make sense together (frequency and period). */
bp_code bpi_config_check_combinations(struct parse *ps, const char *origin,
                                      bool env);

#endif

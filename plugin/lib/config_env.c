/* config_env: the BENCHPROF_* variables that override the file's keys
 * (each key's variable is in bpi_config_keys[]): a variable's text read
 * as the JSON value the file would hold, then set and checked as the file's
 * would be; set but empty counts as unset. */
#include "bp_setup.h"
#include "config.h"
#include "config_int.h"
#include "err.h"
#include "text.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

/* -------------------------------------------------------- environment */

const char *bpi_env_get(char *const *envp, const char *name)
{
  size_t n = strlen(name);
  for(size_t i = 0; envp && envp[i]; i++)
    if(!strncmp(envp[i], name, n) && envp[i][n] == '=')
      return envp[i] + n + 1;
  return NULL;
}

static bool parse_bool_text(const char *s, bool *out)
{
  static const char *const yes[] = {"1", "true", "yes", "on"};
  static const char *const no[] = {"0", "false", "no", "off"};
  for(size_t i = 0; i < BP_ARRAY_LEN(yes); i++) {
    if(!strcmp(s, yes[i])) {
      *out = true;
      return true;
    }
    if(!strcmp(s, no[i])) {
      *out = false;
      return true;
    }
  }
  return false;
}

/* A variable's text as the JSON value the file would hold; NULL when out
 * of memory.  A text that is not of the key's type becomes a string, which
 * the setter then refuses, naming the variable and its value. */
static cJSON *env_value(const struct key *k, const char *s)
{
  bool b;
  switch(k->kind) {
  case K_BOOL:
    return parse_bool_text(s, &b) ? cJSON_CreateBool(b) : cJSON_CreateString(s);
  case K_U64:
  case K_UINT:
  case K_MS:
  case K_NUMBER: {
    /* the range is the setter's to check, with its message */
    double v;
    if(!bpi_text_number(s, -DBL_MAX, DBL_MAX, &v))
      return cJSON_CreateString(s);
    return cJSON_CreateNumber(v);
  }
  case K_COUNTERS: {
    if(!strcmp(s, "none") || !strcmp(s, "false"))
      return cJSON_CreateFalse();
    cJSON *arr = cJSON_CreateArray();
    const char *p = s;
    while(arr) {
      const char *comma = strchr(p, ',');
      size_t n = comma ? (size_t)(comma - p) : strlen(p);
      char *item = strndup(p, n);
      cJSON *e = item ? cJSON_CreateString(item) : NULL;
      free(item);
      if(!e) {
        cJSON_Delete(arr);
        return NULL;
      }
      cJSON_AddItemToArray(arr, e);
      if(!comma)
        break;
      p = comma + 1;
    }
    return arr;
  }
  default:
    return cJSON_CreateString(s);
  }
}

bp_code bpi_config_apply_env(struct bp_config *c, char *const *envp,
                             struct bp_err *err)
{
  struct bp_config tmp;
  struct parse ps = {.c = &tmp, .err = err};
  bp_code rc = bpi_config_copy(&tmp, c);
  if(rc)
    rc = bpi_err_set(err, BPE_NOMEM, 0, "config");
  for(unsigned i = 0; !rc && i < bpi_config_nkeys; i++) {
    const struct key *k = &bpi_config_keys[i];
    const char *v = k->env ? bpi_env_get(envp, k->env) : NULL;
    /* set but empty counts as unset, as CI systems define variables
     * they have no value for */
    if(!v || !*v)
      continue;
    struct where w = {.origin = k->env, .raw = v};
    cJSON *j = env_value(k, v);
    rc = j ? bpi_config_set_value(&ps, i, &w, j)
           : bpi_err_set(err, BPE_NOMEM, 0, "config");
    cJSON_Delete(j);
  }
  if(!rc)
    rc = bpi_config_check_combinations(&ps, NULL, true);
  if(!rc) {
    tmp.given |= ps.given;
    bpi_config_cleanup(c);
    *c = tmp;
    memset(&tmp, 0, sizeof(tmp));
  }
  bpi_config_cleanup(&tmp);
  return rc;
}

/* config_show: `benchprof config show`: the effective configuration as
 * the JSON file that would give it, keys in the table's order, unset keys
 * left out, secrets as "<redacted>". */
#include "bp_setup.h"
#include "config.h"
#include "config_int.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- show */

static bool is_unset(const struct bp_config *c, const struct key *k)
{
  switch(k->kind) {
  case K_OBJ:
  case K_BOOL:
  case K_UINT:
  case K_NUMBER:
  case K_COUNTERS:   /* unset shows as false */
    return false;
  case K_MS:         /* every duration but the deadline has a default */
    return *(const long *)cfield(c, k) == 0;
  case K_U64:
    return *(const uint64_t *)cfield(c, k) == 0;
  default:
    return *(char *const *)cfield(c, k) == NULL;
  }
}

static void show_number(struct bp_buf *b, double v)
{
  char num[40];
  for(int prec = 15; prec <= 17; prec++) {
    snprintf(num, sizeof(num), "%.*g", prec, v);
    if(strtod(num, NULL) == v)
      break;
  }
  bpi_buf_adds(b, num);
}

static void show_value(struct bp_buf *b, const struct bp_config *c,
                       const struct key *k)
{
  const void *f = cfield(c, k);
  switch(k->kind) {
  case K_BOOL:
    bpi_buf_adds(b, *(const bool *)f ? "true" : "false");
    break;
  case K_U64:
    bpi_buf_printf(b, "%llu", (unsigned long long)*(const uint64_t *)f);
    break;
  case K_UINT:
    bpi_buf_printf(b, "%u", *(const unsigned *)f);
    break;
  case K_MS:
    show_number(b, (double)*(const long *)f / 1000);
    break;
  case K_NUMBER:
    show_number(b, *(const double *)f);
    break;
  case K_SECRET:
    bpi_buf_adds(b, "\"<redacted>\"");
    break;
  case K_COUNTERS: {
    const char *s = *(char *const *)f;
    if(!s) {
      bpi_buf_adds(b, "false");
      break;
    }
    bpi_buf_addc(b, '[');
    while(*s) {
      const char *comma = strchr(s, ',');
      size_t n = comma ? (size_t)(comma - s) : strlen(s);
      char *item = strndup(s, n);
      if(!item) {
        b->failed = true;
        return;
      }
      bpi_buf_json_str(b, item);
      free(item);
      s += n;
      if(*s) {
        bpi_buf_adds(b, ", ");
        s++;
      }
    }
    bpi_buf_addc(b, ']');
    break;
  }
  default:
    bpi_buf_json_str(b, *(char *const *)f);
    break;
  }
}

static void show_object(struct bp_buf *b, const struct bp_config *c,
                        const char *prefix, int depth)
{
  bool first = true;
  bpi_buf_addc(b, '{');
  for(unsigned i = 0; i < bpi_config_nkeys; i++) {
    const struct key *k = &bpi_config_keys[i];
    if(!is_child(k->path, prefix) || is_unset(c, k))
      continue;
    bpi_buf_printf(b, "%s\n%*s", first ? "" : ",", 2 * (depth + 1), "");
    first = false;
    bpi_buf_json_str(b, leaf(k->path));
    bpi_buf_adds(b, ": ");
    if(k->kind == K_OBJ)
      show_object(b, c, k->path, depth + 1);
    else
      show_value(b, c, k);
  }
  if(!first)
    bpi_buf_printf(b, "\n%*s", 2 * depth, "");
  bpi_buf_addc(b, '}');
}

bp_code bpi_config_show(const struct bp_config *c, struct bp_buf *out)
{
  show_object(out, c, "", 0);
  bpi_buf_addc(out, '\n');
  return bpi_buf_failed(out) ? BPE_NOMEM : BP_OK;
}

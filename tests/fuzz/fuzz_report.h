/* The body of fuzz_bmf and fuzz_gbench: parse, write BMF, read that back
 * and write it again.  What the writer produced must parse, and the
 * second write must equal the first (names and numbers round-trip). */
#ifndef BP_FUZZ_REPORT_H
#define BP_FUZZ_REPORT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "report.h"

typedef bp_code (*fuzz_parse_fn)(struct bp_report *r, const char *json,
                                 size_t len, const char *origin,
                                 struct bp_err *err);

static int fuzz_report(fuzz_parse_fn parse, const uint8_t *data,
                       size_t size)
{
  struct bp_report r, again;
  struct bp_err err = {0};
  struct bp_buf out, out2;
  /* an exact-size copy: a read past the end is ASan's to see */
  char *json = malloc(size ? size : 1);
  if(!json)
    return 0;
  memcpy(json, data, size);
  bpi_report_init(&r);
  bpi_report_init(&again);
  bpi_buf_init(&out);
  bpi_buf_init(&out2);
  if(parse(&r, json, size, "fuzz", &err) == BP_OK) {
    bpi_report_write_bmf(&r, &out);
    if(!bpi_buf_failed(&out)) {
      if(bpi_report_parse_bmf(&again, out.data, out.len, "written", &err)) {
        fprintf(stderr, "written BMF does not parse: %s\n%.*s\n", err.msg,
                (int)out.len, out.data);
        abort();
      }
      bpi_report_write_bmf(&again, &out2);
      if(!bpi_buf_failed(&out2) &&
         (out.len != out2.len || memcmp(out.data, out2.data, out.len))) {
        fprintf(stderr, "BMF does not round-trip:\n%.*s\n---\n%.*s\n",
                (int)out.len, out.data, (int)out2.len, out2.data);
        abort();
      }
    }
  }
  else if(!err.msg[0]) {
    fprintf(stderr, "a failed parse left no message\n");
    abort();
  }
  bpi_buf_cleanup(&out2);
  bpi_buf_cleanup(&out);
  bpi_report_cleanup(&again);
  bpi_report_cleanup(&r);
  free(json);
  return 0;
}

#endif

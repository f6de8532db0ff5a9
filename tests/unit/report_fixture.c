/* report_fixture: reads a Bencher Metric Format or Google Benchmark JSON
 * file, adds a few made-up counters to every benchmark (one unavailable,
 * which must not appear) and writes the report as BMF to stdout, for
 * tests/integration/report_schema.sh.  On an error it prints the message
 * on one line to stderr and exits 1.
 *   usage: report_fixture bmf|gbench FILE */
#include "bp_setup.h"
#include "fileio.h"
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct bp_counter fake[] = {
  {.name = "instructions", .slug = "instructions", .unit = "instructions",
   .available = true, .raw = 123456, .value = 123456, .running = 1},
  {.name = "cycles", .slug = "cycles", .unit = "cycles",
   .available = false, .reason = "not supported here"},
  {.name = "task-clock", .slug = "task-clock", .unit = "ns",
   .available = true, .raw = 2500000, .value = 2500000.5, .running = 1},
  {.name = "cache-misses", .slug = "cache-misses", .unit = "events",
   .available = true, .raw = 10, .value = 20.5, .running = 0.5},
};

int main(int argc, char **argv)
{
  struct bp_report r;
  struct bp_err err = {.code = BP_OK};
  struct bp_buf out;
  char *data = NULL;
  size_t len = 0;
  bp_code rc;
  if(argc != 3 || (strcmp(argv[1], "bmf") && strcmp(argv[1], "gbench"))) {
    fprintf(stderr, "usage: %s bmf|gbench FILE\n", argv[0]);
    return 2;
  }
  bpi_report_init(&r);
  bpi_buf_init(&out);
  rc = bpi_file_read(argv[2], &data, &len, &err);
  if(!rc && !strcmp(argv[1], "bmf"))
    rc = bpi_report_parse_bmf(&r, data, len, argv[2], &err);
  else if(!rc)
    rc = bpi_report_parse_gbench(&r, data, len, argv[2], &err);
  for(size_t i = 0; !rc && i < r.nbenches; i++)
    rc = bpi_report_add_counters(&r.benches[i], fake, BP_ARRAY_LEN(fake));
  if(!rc) {
    bpi_report_write_bmf(&r, &out);
    if(bpi_buf_failed(&out))
      rc = BPE_NOMEM;
  }
  if(!rc && (fwrite(out.data, 1, out.len, stdout) != out.len ||
             fflush(stdout)))
    rc = BPE_IO;
  if(rc)
    fprintf(stderr, "report_fixture: %s\n", err.msg[0] ? err.msg :
            bp_strerror(rc));
  bpi_buf_cleanup(&out);
  bpi_report_cleanup(&r);
  free(data);
  return rc ? 1 : 0;
}

/* fuzz_gbench: Google Benchmark JSON (--benchmark_format=json) -> bpi_report_parse_gbench, then the BMF
 * written from it must read back and write the same (fuzz_report.h). */
#include "bp_setup.h"

#include <stdint.h>

#include "fuzz.h"
#include "fuzz_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  return fuzz_report(bpi_report_parse_gbench, data, size);
}

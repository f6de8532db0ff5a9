/* fuzz_bmf: Bencher Metric Format JSON -> bpi_report_parse_bmf, then the BMF
 * written from it must read back and write the same (fuzz_report.h). */
#include "bp_setup.h"

#include <stdint.h>

#include "fuzz.h"
#include "fuzz_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  return fuzz_report(bpi_report_parse_bmf, data, size);
}

/* fuzz_records: perf ring records -> bpi_records_parse.
 *
 * Input: 17 bytes of layout (sample_type, the user register mask, a flags
 * byte whose bit 0 is sample_id_all, bit 1 an LBR hw_index), then
 * records as a ring delivers them: each starts with its perf_event_header
 * and is header.size long.
 * Each record is copied into a buffer of exactly its size so that
 * AddressSanitizer sees any read past it, and every pointer the parser
 * hands back is read in full. */
#include "bp_setup.h"
#include "records.h"

#include <linux/perf_event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static volatile uint64_t sink;

/* Read everything r points into, as the converter would. */
static void touch(const struct bp_rec *r)
{
  uint64_t sum = 0;
  switch(r->type) {
  case BP_REC_SAMPLE:
    for(uint64_t i = 0; i < r->u.sample.nr; i++)
      sum += r->u.sample.ips[i];
    for(uint32_t i = 0; r->u.sample.regs && i < r->u.sample.nregs; i++)
      sum += r->u.sample.regs[i];
    for(uint64_t i = 0; r->u.sample.stack && i < r->u.sample.stack_size; i++)
      sum += r->u.sample.stack[i];
    for(uint64_t i = 0; i < 3 * r->u.sample.nbranches; i++)
      sum += r->u.sample.branches[i];
    if(r->u.sample.nbranches) {  /* the chain perf makes of them */
      uint64_t chain[64];
      size_t n = bpi_records_lbr_chain(&r->u.sample, chain, 64);
      for(size_t i = 0; i < n; i++)
        sum += chain[i];
    }
    break;
  case BP_REC_MMAP:
    sum += r->u.mmap.filename ? strlen(r->u.mmap.filename) : 0;
    break;
  case BP_REC_COMM:
    sum += r->u.comm.comm ? strlen(r->u.comm.comm) : 0;
    break;
  default:
    break;
  }
  sink += sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct bp_rec_layout lay;
  if(!fuzz_layout(&data, &size, &lay))
    return 0;
  while(size) {
    size_t len = fuzz_next_record(data, size);
    unsigned char *copy = malloc(len ? len : 1);
    if(!copy)
      return 0;
    memcpy(copy, data, len);
    struct bp_rec r;
    if(bpi_records_parse(&lay, copy, len, &r) == BP_OK)
      touch(&r);
    sink += bpi_records_time(&lay, copy, len);
    free(copy);
    data += len;
    size -= len;
  }
  return 0;
}

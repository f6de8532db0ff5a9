/* Helpers shared by the fuzz targets (tests/fuzz/fuzz_*.c). */
#ifndef BP_FUZZ_H
#define BP_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <linux/perf_event.h>

#include "records.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The record layout from the first 17 bytes of the input: sample_type,
 * sample_regs_user, flags (bit 0: sample_id_all; bit 1: LBR entries after
 * an hw_index).  false when too short. */
static inline bool fuzz_layout(const uint8_t **data, size_t *size,
                               struct bp_rec_layout *lay)
{
  if(*size < 17)
    return false;
  memset(lay, 0, sizeof(*lay));
  memcpy(&lay->sample_type, *data, 8);
  memcpy(&lay->sample_regs_user, *data + 8, 8);
  lay->sample_id_all = (*data)[16] & 1;
  /* bit 1: LBR entries preceded by hw_index */
  lay->branch_sample_type = PERF_SAMPLE_BRANCH_CALL_STACK |
                            PERF_SAMPLE_BRANCH_USER;
  if((*data)[16] & 2)
    lay->branch_sample_type |= PERF_SAMPLE_BRANCH_HW_INDEX;
  *data += 17;
  *size -= 17;
  return true;
}

/* Bytes of the next record: its header's size when that fits in what is
 * left and is at least a header, else everything left (one bad record). */
static inline size_t fuzz_next_record(const uint8_t *data, size_t size)
{
  struct perf_event_header h;
  if(size < sizeof(h))
    return size;
  memcpy(&h, data, sizeof(h));
  if(h.size < sizeof(h) || h.size > size)
    return size;
  return h.size;
}

#endif

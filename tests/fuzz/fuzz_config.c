/* fuzz_config: a config file's text -> bpi_config_parse over the defaults,
 * then the effective configuration written back (bpi_config_show), which
 * must itself parse: what show prints is a valid config file. */
#include "bp_setup.h"

#include <stdint.h>
#include <stdlib.h>

#include "buf.h"
#include "config.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct bp_config c;
  struct bp_err err = {0};
  struct bp_buf shown;
  if(bpi_config_init(&c))
    return 0;
  bpi_buf_init(&shown);
  if(!bpi_config_parse(&c, (const char *)data, size, "fuzz.json", &err) &&
     !bpi_config_show(&c, &shown)) {
    struct bp_config again;
    if(!bpi_config_init(&again)) {
      /* a token shows as "<redacted>", which is still a valid token */
      if(bpi_config_parse(&again, shown.data, shown.len, "shown", &err))
        abort();
      bpi_config_cleanup(&again);
    }
  }
  bpi_buf_cleanup(&shown);
  bpi_config_cleanup(&c);
  return 0;
}

/* fuzz_input: a file given to benchprof as an input (config, BMF, event
 * payload, a stored manifest): plain or gzip, also corrupt, truncated or
 * several members, or a bomb that inflates far past its size.  The bytes
 * become an in-memory file (memfd), read with bpi_file_read_max under a
 * cap taken from the first byte (1 to 256 KiB) and through
 * bpi_config_load_file (1 MiB).  A read that succeeds returns at most the
 * cap, NUL-terminated; one past the cap is BPE_FORMAT, never more memory
 * than the cap and a buffer's growth. */
#include "bp_setup.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config.h"
#include "err.h"
#include "fileio.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if(size < 1)
    return 0;
  size_t cap = ((size_t)data[0] + 1) * 1024;
  int fd = memfd_create("fuzz_input", MFD_CLOEXEC);
  if(fd < 0)
    return 0;
  if(write(fd, data + 1, size - 1) != (ssize_t)(size - 1)) {
    close(fd);
    return 0;
  }
  char path[64];
  snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);

  char *text = NULL;
  size_t len = 0;
  struct bp_err err = {0};
  bp_code rc = bpi_file_read_max(path, cap, &text, &len, &err);
  if(!rc && (len > cap || text[len] != '\0'))
    abort();
  if(rc && rc != BPE_FORMAT && rc != BPE_IO && rc != BPE_NOMEM)
    abort();
  free(text);

  struct bp_config c;
  if(!bpi_config_init(&c)) {
    bpi_err_clear(&err);
    bpi_config_load_file(&c, path, &err);
    bpi_config_cleanup(&c);
  }
  close(fd);
  return 0;
}

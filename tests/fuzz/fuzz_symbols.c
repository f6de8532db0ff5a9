/* fuzz_symbols: an ELF file (with or without DWARF) -> the symbolizer.
 *
 * The input is written to a file, which the symbolizer opens as a module
 * (libdwfl); then the file offset -> vaddr delta, the build id and the
 * symbols of a spread of addresses are asked for, with and without a
 * build id to check against, as the converter does for a mapped file. */
#include "bp_setup.h"
#include "symbols.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

static char path[300];
static volatile size_t sink;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  (void)argc;
  (void)argv;
  const char *tmp = getenv("TMPDIR");
  snprintf(path, sizeof(path), "%s/bp-fuzz-elf.%ld", tmp ? tmp : "/tmp",
           (long)getpid());
  return 0;
}

static void use(const struct bp_sym *s)
{
  sink += strlen(s->name) + (s->file ? strlen(s->file) : 0) + s->line +
          s->start_line;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static const uint64_t fixed[] = {
    0, 0x40, 0x400, 0x1000, 0x1040, 0x1100, 0x1139, 0x1200, 0x2000,
    0x400000, 0x401000, 0x401126, UINT64_MAX,
  };
  FILE *f = fopen(path, "wb");
  if(!f)
    abort();
  if(size && fwrite(data, 1, size, f) != size)
    abort();
  fclose(f);
  struct bp_symbols_opts so = {.jit_map_dir = "/nonexistent",
                               .kallsyms = "/nonexistent", .demangle = true};
  struct bp_symbols *s;
  if(bpi_symbols_new(&s, &so))
    return 0;
  int64_t delta = 0;
  char bid[41];
  struct bp_sym sym;
  (void)bpi_symbols_vaddr_delta(s, path, 0, &delta);
  (void)bpi_symbols_vaddr_delta(s, path, 0x1000, &delta);
  if(bpi_symbols_build_id(s, path, bid, sizeof(bid)) != BP_OK)
    bid[0] = '\0';
  for(size_t i = 0; i < BP_ARRAY_LEN(fixed); i++) {
    if(bpi_symbols_resolve(s, path, NULL, fixed[i], &sym))
      use(&sym);
    if(bpi_symbols_resolve(s, path, bid, fixed[i] + 1, &sym))
      use(&sym);
  }
  /* addresses found in the file itself: entry points, symbol values */
  for(size_t at = 0; at + 8 <= size && at < 512; at += 8) {
    uint64_t a;
    memcpy(&a, data + at, 8);
    if(bpi_symbols_resolve(s, path, NULL, a, &sym))
      use(&sym);
  }
  if(bpi_symbols_resolve(s, path, "00112233", 0x1000, &sym))
    use(&sym);
  bpi_symbols_free(s);
  return 0;
}

/* fuzz_jitmap: a perf-PID.map file (and the same bytes as kallsyms) ->
 * the symbolizer's line parsers, sorting and range lookups. */
#include "bp_setup.h"
#include "symbols.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

#define FUZZ_PID 4242

static char dir[256];
static char map[300];
static volatile size_t sink;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  (void)argc;
  (void)argv;
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof(dir), "%s/bp-fuzz-jit.XXXXXX", tmp ? tmp : "/tmp");
  if(!mkdtemp(dir))
    abort();
  snprintf(map, sizeof(map), "%s/perf-%d.map", dir, FUZZ_PID);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static const uint64_t fixed[] = {
    0, 1, 0x1000, 0x7f0000001000, 0xffffffff81000000, UINT64_MAX,
  };
  FILE *f = fopen(map, "wb");
  if(!f)
    abort();
  if(size && fwrite(data, 1, size, f) != size)
    abort();
  fclose(f);
  struct bp_symbols_opts so = {.jit_map_dir = dir, .kallsyms = map,
                               .demangle = size & 1};
  struct bp_symbols *s;
  if(bpi_symbols_new(&s, &so))
    return 0;
  struct bp_sym sym;
  for(size_t i = 0; i < BP_ARRAY_LEN(fixed); i++) {
    if(bpi_symbols_resolve_jit(s, FUZZ_PID, fixed[i], &sym))
      sink += strlen(sym.name);
    if(bpi_symbols_resolve_kernel(s, fixed[i], &sym))
      sink += strlen(sym.name);
  }
  /* the addresses the file itself names, and the byte before and after */
  char *text = malloc(size + 1);
  if(text) {
    memcpy(text, data, size);
    text[size] = '\0';
    for(char *p = text; p && p < text + size; p = strchr(p, '\n')) {
      while(*p == '\n')
        p++;
      char *end;
      uint64_t a = strtoull(p, &end, 16);
      for(uint64_t d = 0; d < 3; d++) {
        if(bpi_symbols_resolve_jit(s, FUZZ_PID, a + d - 1, &sym))
          sink += strlen(sym.name);
        if(bpi_symbols_resolve_kernel(s, a + d - 1, &sym))
          sink += strlen(sym.name);
      }
      if(!*p)
        break;
    }
    free(text);
  }
  bpi_symbols_free(s);
  return 0;
}

/* fuzz_converter: a stream of perf records -> converter -> every exporter.
 *
 * Input: as fuzz_records (17 bytes of layout, then records), with one more
 * byte first: the call-graph mode.  The records go through
 * bpi_converter_record() as the sampler delivers them, then
 * bpi_converter_finish() unwinds (when the layout has stack copies),
 * symbolizes and names threads, and each exporter writes the profile to
 * memory.
 *
 * The converter opens the files that MMAP records name and reads
 * /proc/PID/maps on a miss.  So that a run depends on its input alone, a
 * file name is replaced by one of a few fixed names (an ELF file of the
 * seed corpus, [vdso], anonymous memory, a missing file) picked by its
 * first byte, and the converter's /proc is an empty folder: the source is
 * included to reach that setting. */
#include "../../plugin/lib/converter.c"

#include <stdio.h>
#include <unistd.h>

#include "export.h"
#include "fuzz.h"

#ifndef FUZZ_SRCDIR
#define FUZZ_SRCDIR "tests/fuzz"
#endif

static char dir[256];
static char kallsyms[300];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  (void)argc;
  (void)argv;
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof(dir), "%s/bp-fuzz-conv.XXXXXX", tmp ? tmp : "/tmp");
  if(!mkdtemp(dir))
    abort();
  snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", dir);
  FILE *f = fopen(kallsyms, "w");
  if(!f)
    abort();
  fputs("ffffffff81000000 T _stext\nffffffff81000100 t kfunc\n", f);
  fclose(f);
  return 0;
}

static const char *const names[] = {
  FUZZ_SRCDIR "/corpus/symbols/small-g", "[vdso]", "//anon", "[stack]",
  "/nonexistent/libgone.so", "",
};

/* Bytes of the sample id trailer (records.c's rule). */
static size_t trailer_size(const struct bp_rec_layout *lay)
{
  static const uint64_t bits[] = {PERF_SAMPLE_TID, PERF_SAMPLE_TIME,
    PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
    PERF_SAMPLE_IDENTIFIER};
  size_t n = 0;
  for(size_t i = 0; lay->sample_id_all && i < BP_ARRAY_LEN(bits); i++)
    n += (lay->sample_type & bits[i]) ? 8 : 0;
  return n;
}

/* Replace the file name of an MMAP record in rec (writable, len bytes). */
static void fix_filename(const struct bp_rec_layout *lay, unsigned char *rec,
                         size_t len)
{
  struct bp_rec r;
  if(bpi_records_parse(lay, rec, len, &r) != BP_OK || r.type != BP_REC_MMAP)
    return;
  char *fn = (char *)(uintptr_t)r.u.mmap.filename;
  size_t room = len - (size_t)((unsigned char *)fn - rec) -
                trailer_size(lay);
  const char *want = names[(unsigned char)fn[0] % BP_ARRAY_LEN(names)];
  size_t n = strlen(want);
  if(n + 1 > room)
    want = "", n = 0;
  memset(fn, 0, room);
  memcpy(fn, want, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct bp_rec_layout lay;
  if(size < 1)
    return 0;
  enum bp_call_graph mode = (enum bp_call_graph)(data[0] % 3);
  data++;
  size--;
  if(!fuzz_layout(&data, &size, &lay))
    return 0;
  struct bp_profile *p = NULL;
  struct bp_symbols *sym = NULL;
  struct bp_converter *c = NULL;
  struct bp_symbols_opts so = {.jit_map_dir = dir, .kallsyms = kallsyms,
                               .demangle = true};
  if(bpi_profile_new(&p) || bpi_symbols_new(&sym, &so) ||
     bpi_converter_new(&c, p, sym, &lay, mode))
    goto out;
  c->procs.proc_root = dir;
  while(size) {
    size_t len = fuzz_next_record(data, size);
    unsigned char *copy = malloc(len ? len : 1);
    if(!copy)
      goto out;
    memcpy(copy, data, len);
    fix_filename(&lay, copy, len);
    bp_code rc = bpi_converter_record(c, copy, len);
    free(copy);
    if(rc)
      goto out;
    data += len;
    size -= len;
  }
  struct bp_err err = {0};
  if(bpi_converter_finish(c, &err) == BP_OK) {
    for(size_t i = 0; bpi_exporters[i]; i++) {
      struct bp_buf b;
      struct bp_err e2 = {0};
      bpi_buf_init(&b);
      (void)bpi_exporters[i]->write(p, &b, &e2);
      bpi_buf_cleanup(&b);
    }
  }
out:
  bpi_converter_free(c);
  bpi_symbols_free(sym);
  bpi_profile_free(p);
  return 0;
}

#include "bp_setup.h"
#include "export.h"
#include "err.h"
#include "fileio.h"
#include "text.h"

#include <stdlib.h>


const struct bp_exporter *const bpi_exporters[] = {
  &bpi_export_gecko,
  &bpi_export_pprof,
  &bpi_export_folded,
  &bpi_export_svg,
  &bpi_export_summary,
  &bpi_export_offcpu_folded,
  &bpi_export_offcpu_svg,
  NULL,
};

_Static_assert(BP_ARRAY_LEN(bpi_exporters) - 1 <= BP_EXPORTERS_MAX,
               "struct bp_export_record has room for every exporter");

bool bpi_export_has_off_cpu(const struct bp_profile *p)
{
  return p->meta.off_cpu;
}

struct sink {
  struct bp_file_out *f;
  bool write_failed;
};

static bool sink_to_file(void *ctx, const void *data, size_t len)
{
  struct sink *k = ctx;
  if(bpi_file_out_write(k->f, data, len) == BP_OK)
    return true;
  k->write_failed = true;
  return false;
}

bp_code bpi_export_one(const struct bp_exporter *e,
                       const struct bp_profile *p, const char *dir,
                       struct bp_file_digest *digest, struct bp_err *err)
{
  char *path = bpi_text_path_join(dir, e->file);
  if(!path)
    return bpi_err_set(err, BPE_NOMEM, 0, "building %s", e->file);
  struct sink k = {0};
  unsigned flags = (e->gzip ? BP_FILE_GZIP : 0) |
                   (digest ? BP_FILE_SHA256 : 0);
  bp_code rc = bpi_file_out_open(&k.f, path, flags, err);
  free(path);
  if(rc)
    return rc;
  /* streamed: the artifact goes to the file (and the compressor) in
   * chunks as it is built, so memory does not grow with its size */
  struct bp_buf out;
  bpi_buf_init(&out);
  bpi_buf_set_sink(&out, sink_to_file, &k);
  rc = e->write(p, &out, err);
  if(!rc)
    bpi_buf_flush(&out);
  bool failed = bpi_buf_failed(&out);
  bpi_buf_cleanup(&out);
  if(!rc && failed && k.write_failed)
    return bpi_file_out_commit(k.f, NULL, err);  /* the write error */
  if(!rc && failed)
    rc = bpi_err_set(err, BPE_NOMEM, 0, "building %s", e->file);
  if(rc) {
    bpi_file_out_abort(k.f);
    return rc;
  }
  return bpi_file_out_commit(k.f, digest, err);
}

bp_code bpi_export_all(const struct bp_profile *p, const char *dir,
                       struct bp_export_record *record, struct bp_err *err)
{
  if(record)
    *record = (struct bp_export_record){.n = 0};
  bp_code rc = bpi_file_mkdirs(dir, err);
  for(size_t i = 0; !rc && bpi_exporters[i]; i++) {
    const struct bp_exporter *e = bpi_exporters[i];
    if(e->wanted && !e->wanted(p))
      continue;
    struct bp_export_written *w = record ? &record->files[record->n] : NULL;
    rc = bpi_export_one(e, p, dir, w ? &w->digest : NULL, err);
    if(!rc && w) {
      w->exporter = e;
      record->n++;
    }
  }
  if(!rc && record)
    record->complete = true;
  return rc;
}

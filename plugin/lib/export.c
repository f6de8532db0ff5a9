#include "bp_setup.h"
#include "export.h"
#include "err.h"
#include "fileio.h"

#include <limits.h>
#include <stdio.h>

const struct bp_exporter *const bpi_exporters[] = {
  &bpi_export_gecko,
  &bpi_export_pprof,
  &bpi_export_folded,
  &bpi_export_svg,
  &bpi_export_summary,
  NULL,
};

bp_code bpi_export_one(const struct bp_exporter *e,
                       const struct bp_profile *p, const char *dir,
                       struct bp_err *err)
{
  char path[PATH_MAX];
  if((size_t)snprintf(path, sizeof(path), "%s/%s", dir, e->file) >=
     sizeof(path))
    return bpi_err_set(err, BPE_INVAL, 0, "output path too long: '%s'", dir);
  struct bp_buf out;
  bpi_buf_init(&out);
  bp_code rc = e->write(p, &out, err);
  if(!rc && bpi_buf_failed(&out))
    rc = bpi_err_set(err, BPE_NOMEM, 0, "building %s", e->file);
  if(!rc)
    rc = bpi_file_write(path, out.data ? out.data : "", out.len, e->gzip,
                        err);
  bpi_buf_cleanup(&out);
  return rc;
}

bp_code bpi_export_all(const struct bp_profile *p, const char *dir,
                       struct bp_err *err)
{
  bp_code rc = bpi_file_mkdirs(dir, err);
  for(size_t i = 0; !rc && bpi_exporters[i]; i++)
    rc = bpi_export_one(bpi_exporters[i], p, dir, err);
  return rc;
}

/* benchprof run: the runner-side wrapper.  Records the command and counts
 * events over it (as benchprof record does), then writes the benchmark
 * report (report.json, BMF) with one measure per counter, and
 * manifest.json, which attaches the artifacts to the report.  The
 * command's output and exit status pass through; a harness whose results
 * cannot be read makes benchprof fail, but its raw output is kept and the
 * profiles are written. */
#include "bp_setup.h"
#include "cli.h"
#include "msgs.h"

#include "buf.h"
#include "err.h"
#include "export.h"
#include "fileio.h"
#include "report.h"
#include "sha256.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define REPORT_FILE "report.json"
#define MANIFEST_FILE "manifest.json"
#define RAW_FILE "harness-output.txt"

static void collect_output(void *ctx, const char *data, size_t len)
{
  bpi_buf_add(ctx, data, len);
}

static const char *base_name(const char *path)
{
  const char *slash = strrchr(path, '/');
  return slash && slash[1] ? slash + 1 : path;
}

static bp_code join(char *out, size_t len, const char *dir, const char *file,
                    struct bp_err *err)
{
  if((size_t)snprintf(out, len, "%s/%s", dir, file) >= len)
    return bpi_err_set(err, BPE_INVAL, 0, "path too long: '%s'", dir);
  return BP_OK;
}

/* Keep what the harness produced when it could not be read. */
static void keep_raw(const struct bp_record_args *a, const char *data,
                     size_t len)
{
  char path[PATH_MAX];
  struct bp_err err = {0};
  if(join(path, sizeof(path), a->output, RAW_FILE, &err) ||
     bpi_file_write(path, data ? data : "", len, false, &err))
    bp_msg_err(&err, err.code);
  else
    bp_msg_note("the harness's raw output is in %s", path);
}

/* Parse the harness's results into rep; false (and the raw output kept)
 * when they are malformed. */
static bool load_results(const struct bp_record_args *a,
                         const struct bp_buf *out, struct bp_report *rep)
{
  struct bp_err err = {0};
  char *file = NULL;
  size_t len = 0;
  bp_code rc = BP_OK;
  if(a->bmf_file) {
    rc = bpi_file_read(a->bmf_file, &file, &len, &err);
    if(rc) {
      bp_msg_error("the harness wrote no results: %s", err.msg);
      return false;
    }
    rc = bpi_report_parse_bmf(rep, file, len, a->bmf_file, &err);
  }
  else if(a->adapter == BP_ADAPTER_JSON)
    rc = bpi_report_parse_bmf(rep, out->data ? out->data : "", out->len,
                              "stdout", &err);
  else if(a->adapter == BP_ADAPTER_GBENCH)
    rc = bpi_report_parse_gbench(rep, out->data ? out->data : "", out->len,
                                 "stdout", &err);
  if(rc) {
    bp_msg_err(&err, rc);
    if(file)
      keep_raw(a, file, len);
    else
      keep_raw(a, out->data, out->len);
  }
  free(file);
  return rc == BP_OK;
}

/* Counters measure the whole invocation: they belong to its benchmark
 * when there is exactly one. */
static bp_code attach_counters(const struct bp_record_args *a,
                               struct bp_report *rep,
                               const struct bp_profile *prof)
{
  if(rep->nbenches == 0 &&
     !bpi_report_bench(rep, a->name ? a->name : base_name(a->rec.argv[0])))
    return BPE_NOMEM;
  if(rep->nbenches > 1) {
    bp_msg_warn("%zu benchmarks ran in one process: the counters cover all "
                "of them, so none is attached (run each benchmark in its "
                "own invocation to get its counters)", rep->nbenches);
    return BP_OK;
  }
  return bpi_report_add_counters(&rep->benches[0], prof->meta.counters,
                                 prof->meta.ncounters);
}

static bp_code write_report(const struct bp_record_args *a,
                            const struct bp_report *rep, struct bp_err *err)
{
  char path[PATH_MAX];
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_report_write_bmf(rep, &b);
  bp_code rc = join(path, sizeof(path), a->output, REPORT_FILE, err);
  if(!rc && bpi_buf_failed(&b))
    rc = bpi_err_set(err, BPE_NOMEM, 0, "report");
  if(!rc)
    rc = bpi_file_write(path, b.data, b.len, false, err);
  bpi_buf_cleanup(&b);
  return rc;
}

/* {"file": ..., "bytes": N, "sha256": ...} of one file of the run. */
static bp_code add_artifact(struct bp_buf *b, const char *dir,
                            const char *file, const char *kind,
                            struct bp_err *err)
{
  char path[PATH_MAX], hex[2 * BP_SHA256_LEN + 1];
  struct stat st;
  bp_code rc = join(path, sizeof(path), dir, file, err);
  if(!rc && stat(path, &st))
    rc = bpi_err_set(err, BPE_IO, errno, "cannot stat '%s'", path);
  if(!rc)
    rc = bpi_sha256_file(path, hex, err);
  if(rc)
    return rc;
  bpi_buf_adds(b, "\n    {\"file\": ");
  bpi_buf_json_str(b, file);
  bpi_buf_adds(b, ", \"kind\": ");
  bpi_buf_json_str(b, kind);
  bpi_buf_printf(b, ", \"bytes\": %lld, \"sha256\": \"%s\"}",
                 (long long)st.st_size, hex);
  return BP_OK;
}

static const char *artifact_kind(const struct bp_exporter *e)
{
  static const char *const kinds[][2] = {
    {"gecko", "firefox-profiler"}, {"pprof", "pprof"},
    {"folded", "folded-stacks"}, {"svg", "flamegraph"},
    {"summary", "summary"},
  };
  for(size_t i = 0; i < BP_ARRAY_LEN(kinds); i++)
    if(!strcmp(e->name, kinds[i][0]))
      return kinds[i][1];
  return e->name;
}

static void add_event(struct bp_buf *b, const struct bp_profile_meta *m)
{
  bpi_buf_adds(b, "  \"event\": {\"requested\": ");
  bpi_buf_json_str(b, m->requested_event);
  bpi_buf_adds(b, ", \"used\": ");
  bpi_buf_json_str(b, m->event);
  bpi_buf_printf(b, ", \"fallback\": %s, \"fallback_reason\": ",
                 m->fallback_reason ? "true" : "false");
  if(m->fallback_reason)
    bpi_buf_json_str(b, m->fallback_reason);
  else
    bpi_buf_adds(b, "null");
  bpi_buf_adds(b, "},\n");
}

/* The manifest, written last: every file it names is complete. */
static bp_code write_manifest(const struct bp_record_args *a,
                              const struct bp_report *rep,
                              const struct bp_profile *prof,
                              struct bp_err *err)
{
  const struct bp_profile_meta *m = &prof->meta;
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_buf_adds(&b, "{\n  \"benchprof_version\": \"" BENCHPROF_VERSION "\",\n"
                   "  \"command\": ");
  bpi_buf_json_str(&b, m->command);
  bpi_buf_printf(&b, ",\n  \"exit_status\": %d,\n  \"report\": \""
                 REPORT_FILE "\",\n", m->exit_status);
  add_event(&b, m);
  bpi_buf_printf(&b, "  \"samples\": %llu,\n  \"lost\": %llu,\n"
                 "  \"counters\": ", (unsigned long long)m->samples,
                 (unsigned long long)m->lost_records);
  bpi_counters_json(&b, m->counters, m->ncounters);
  bpi_buf_adds(&b, ",\n  \"artifacts\": [");
  bp_code rc = BP_OK;
  for(size_t i = 0; !rc && bpi_exporters[i]; i++) {
    if(i)
      bpi_buf_addc(&b, ',');
    rc = add_artifact(&b, a->output, bpi_exporters[i]->file,
                      artifact_kind(bpi_exporters[i]), err);
  }
  /* one profile covers the invocation: every benchmark points at it */
  bpi_buf_adds(&b, "\n  ],\n  \"benchmarks\": [");
  for(size_t i = 0; i < rep->nbenches; i++) {
    bpi_buf_adds(&b, i ? ",\n    {\"name\": " : "\n    {\"name\": ");
    bpi_buf_json_str(&b, rep->benches[i].name);
    bpi_buf_adds(&b, ", \"profile\": \".\"}");
  }
  bpi_buf_adds(&b, "\n  ]\n}\n");
  char path[PATH_MAX];
  if(!rc)
    rc = join(path, sizeof(path), a->output, MANIFEST_FILE, err);
  if(!rc && bpi_buf_failed(&b))
    rc = bpi_err_set(err, BPE_NOMEM, 0, "manifest");
  if(!rc)
    rc = bpi_file_write(path, b.data, b.len, false, err);
  bpi_buf_cleanup(&b);
  return rc;
}

int cmd_run(int argc, char **argv)
{
  struct bp_record_args a;
  bp_cli_record_defaults(&a, true);
  int status = bp_cli_record_args(argc, argv, &a);
  if(status >= 0)
    return status;
  struct bp_buf out;
  bpi_buf_init(&out);
  if(a.adapter != BP_ADAPTER_NONE) {
    a.rec.on_output = collect_output;
    a.rec.output_ctx = &out;
  }
  struct bp_profile *prof;
  status = bp_cli_record(&a, &prof);
  if(!prof) {  /* the command never ran, or nothing could be written */
    bpi_buf_cleanup(&out);
    return status;
  }
  struct bp_report rep;
  struct bp_err err = {0};
  bpi_report_init(&rep);
  bool ok = !bpi_buf_failed(&out) && load_results(&a, &out, &rep);
  bp_code rc = ok ? attach_counters(&a, &rep, prof) : BP_OK;
  if(ok && !rc)
    rc = write_report(&a, &rep, &err);
  if(ok && !rc)
    rc = write_manifest(&a, &rep, prof, &err);
  if(rc)
    bp_msg_err(&err, rc);
  else if(ok)
    bp_msg_note("report: %s/" REPORT_FILE " (%zu benchmark%s), manifest: "
                "%s/" MANIFEST_FILE, a.output, rep.nbenches,
                rep.nbenches == 1 ? "" : "s", a.output);
  if((!ok || rc) && status == 0)
    status = BP_EXIT_ERROR;  /* the command's own failure wins */
  bpi_report_cleanup(&rep);
  bpi_profile_free(prof);
  bpi_buf_cleanup(&out);
  return status;
}

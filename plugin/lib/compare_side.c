/* compare, a side: one run directory as compare reads it: its
 * manifest.json and report.json, who published it (the manifest's
 * "publication"), the public URLs of its artifacts, and what a
 * benchmark's summary.json says about its profile (the sampled event and
 * the events one sample stands for). */
#include "bp_setup.h"
#include "compare_int.h"
#include "bencher.h"
#include "err.h"
#include "fileio.h"
#include "text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

static char *dup_or_null(const char *s)
{
  return s ? strdup(s) : NULL;
}

/* text parsed; *at: where it stopped being JSON.  The position comes
 * from the parse itself, not from cJSON_GetErrorPtr(): that reads a
 * global which every parse writes, and the comparison's workers
 * (parallel.h) parse summary.json files at the same time.  Nothing here
 * reads that global; serializing the parses for it would cost half of
 * what the workers share out. */
static cJSON *parse_json(const char *text, size_t len, size_t *at)
{
  const char *stop = NULL;
  cJSON *j = cJSON_ParseWithLengthOpts(text, len, &stop, false);
  *at = !j && stop && stop >= text && stop <= text + len ?
        (size_t)(stop - text) : 0;
  return j;
}

static bp_code read_json(const char *dir, const char *file, cJSON **out,
                         struct bp_err *err)
{
  char *text = NULL;
  size_t len = 0, at;
  bp_code rc;
  char *path = bpi_text_path_join(dir, file);
  if(!path)
    return bpi_err_set(err, BPE_NOMEM, 0, "compare: %s", file);
  rc = bpi_file_read(path, &text, &len, err);
  if(rc)
    goto out;
  *out = parse_json(text, len, &at);
  if(!*out)
    rc = bpi_err_set(err, BPE_FORMAT, 0, "%s: not valid JSON (at byte %zu)",
                     path, at);
out:
  free(text);
  free(path);
  return rc;
}

/* prefix/file, each segment of file percent-encoded; NULL without
 * memory. */
static char *join_file(const char *prefix, const char *file)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  size_t n = strlen(prefix);
  bpi_buf_adds(&b, prefix);
  if(!n || prefix[n - 1] != '/')
    bpi_buf_addc(&b, '/');
  bpi_text_pct_encode(&b, !strncmp(file, "./", 2) ? file + 2 : file, "/");
  if(bpi_buf_failed(&b)) {
    bpi_buf_cleanup(&b);
    return NULL;
  }
  return b.data;
}

/* The public URL of a run's artifact file (relative to the run): the one
 * the publication recorded for it when a viewer can open it (a fetched
 * side's are its keys' under the store's public URL, compare_store.c),
 * else url_prefix/file (compare --base-url/--head-url), else the
 * recorded one (a file:// store's), else NULL.  A stored manifest
 * (publish.c) gives each artifact its "url":
 *   {"benchmarks": [{"artifacts": [{"file": F, "url": U}, ...]}, ...]} */
char *bpi_cmp_artifact_url(const struct side *s, const char *file)
{
  uint32_t i = bpi_name_index_find(&s->url_index, file);
  const struct bp_manifest_bench *b =
    i == BP_NONE ? NULL : &s->manifest.benches[i];
  const char *recorded = NULL;
  for(size_t k = 0; b && k < b->narts && !recorded; k++)
    if(b->arts[k].file && b->arts[k].url && !strcmp(b->arts[k].file, file))
      recorded = b->arts[k].url;
  if(bpi_text_web_url(recorded))
    return strdup(recorded);
  if(s->url_prefix && *s->url_prefix)
    return join_file(s->url_prefix, file);
  return recorded ? strdup(recorded) : NULL;
}

/* Bencher's console for an API host: the cloud's API is api.bencher.dev,
 * its console bencher.dev; any other host is taken as a self-hosted
 * server, whose console is on the API's host as given (its default
 * setup serves both), unless the publication recorded the console
 * (bencher.console_url), which is given here instead and kept as it is. */
static char *bencher_console(const char *host)
{
  if(!host)
    return NULL;
  if(!strncmp(host, "https://api.bencher.dev", 23) &&
     (!host[23] || host[23] == '/'))
    return strdup("https://bencher.dev");
  size_t n = strlen(host);
  while(n && host[n - 1] == '/')
    n--;
  return strndup(host, n);
}

bool bpi_compare_time_ms(const char *iso, int64_t *ms)
{
  return bpi_text_iso8601_ms(iso, ms);
}

/* publication.bencher's plot ids: {"project": SLUG, "branch_uuid": U,
 * "head_uuid": U, "testbed_uuid": U, "end_time": T}, the end falling back
 * to the publication's own. */
static void side_bencher(struct bp_cmp_side *out, const cJSON *pub)
{
  const cJSON *bencher = cJSON_GetObjectItemCaseSensitive(pub, "bencher");
  const char *uuids[] = {"branch_uuid", "head_uuid", "testbed_uuid"};
  char **into[] = {&out->bencher_branch, &out->bencher_head,
                   &out->bencher_testbed};
  const char *project = bpi_json_str(bencher, "project");
  if(project && *project)
    out->bencher_project = strdup(project);
  for(size_t i = 0; i < BP_ARRAY_LEN(uuids); i++) {
    const char *u = bpi_json_str(bencher, uuids[i]);
    if(bpi_bencher_is_uuid(u))
      *into[i] = strdup(u);
  }
  const char *end = bpi_json_str(bencher, "end_time");
  int64_t ms;
  if(bpi_compare_time_ms(end ? end : bpi_json_str(pub, "end_time"), &ms))
    out->bencher_end_ms = ms;
}

/* Whether a run directory's publication (publish.c's note: "state",
 * "bencher" null when no Bencher report was to be sent) still waits in
 * the spool with a Bencher report Bencher has not taken.  "failed" (the
 * spool could not hold it) is not waiting anywhere: not said. */
static bool bencher_pending(const cJSON *pub, const char *report_uuid)
{
  const char *state = bpi_json_str(pub, "state");
  const cJSON *bencher = cJSON_GetObjectItemCaseSensitive(pub, "bencher");
  return !report_uuid && cJSON_IsObject(bencher) && state &&
         !strcmp(state, "spooled");
}

/* Who a side is, from its manifest's "publication": a stored manifest
 * (publish.c) has {"identity": {project, branch, hash, commit,
 * commit_time, testbed}, "end_time": T, "bencher": {host, report_uuid}},
 * and compare's fetch adds
 * "manifest_url"; a run directory's has {state, report_uuid,
 * manifest_url} and no identity. */
bp_code bpi_cmp_side_identity(struct bp_cmp_side *out, const struct side *s)
{
  const cJSON *pub = s->manifest.publication;
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(pub, "identity");
  const cJSON *bencher = cJSON_GetObjectItemCaseSensitive(pub, "bencher");
  const char *hash = bpi_json_str(id, "hash");
  const char *uuid = bpi_json_str(pub, "report_uuid");
  out->dir = strdup(s->dir);
  out->project = dup_or_null(bpi_json_str(id, "project"));
  out->branch = dup_or_null(bpi_json_str(id, "branch"));
  out->hash = dup_or_null(hash ? hash : bpi_json_str(id, "commit"));
  out->testbed = dup_or_null(bpi_json_str(id, "testbed"));
  out->commit_time = dup_or_null(bpi_json_str(id, "commit_time"));
  out->end_time = dup_or_null(bpi_json_str(pub, "end_time"));
  out->report_uuid = dup_or_null(uuid ? uuid : bpi_json_str(bencher,
                                                        "report_uuid"));
  /* a console the operator named (bencher.console_url), else the host's */
  const char *console = bpi_json_str(bencher, "console");
  out->bencher_url = bencher_console(console ? console
                                             : bpi_json_str(bencher, "host"));
  out->manifest_url = dup_or_null(bpi_json_str(pub, "manifest_url"));
  out->command = dup_or_null(s->manifest.command);
  out->outcome = dup_or_null(s->manifest.outcome);
  out->signal = dup_or_null(s->manifest.signal);
  out->has_exit_status = s->manifest.has_exit_status;
  out->exit_status = s->manifest.exit_status;
  side_bencher(out, pub);
  out->bencher_pending = bencher_pending(pub, out->report_uuid);
  return out->dir ? BP_OK : BPE_NOMEM;
}

/* The report's benchmarks by name, and which manifest benchmark has the
 * URL of each artifact file (the first, as a scan would find it). */
static bp_code index_side(struct side *s)
{
  bp_code rc = BP_OK;
  for(size_t i = 0; !rc && i < s->report.nbenches; i++)
    rc = bpi_name_index_add(&s->report_index, s->report.benches[i].name,
                            (uint32_t)i);
  for(size_t i = 0; !rc && i < s->manifest.nbenches; i++) {
    const struct bp_manifest_bench *b = &s->manifest.benches[i];
    for(size_t k = 0; !rc && k < b->narts; k++)
      if(b->arts[k].file && b->arts[k].url)
        rc = bpi_name_index_add(&s->url_index, b->arts[k].file, (uint32_t)i);
  }
  return rc;
}

/* A run interrupted before its harness wrote (all) its results: its
 * manifest names no report (run_outputs.h).  Said as what happened, from
 * the manifest, not as a broken run directory. */
static bp_code interrupted_side(const struct side *s, struct bp_err *err)
{
  const struct bp_manifest *m = &s->manifest;
  char status[32] = "";
  if(m->has_exit_status)
    snprintf(status, sizeof(status), " (exit status %d)", m->exit_status);
  return bpi_err_set(err, BPE_FORMAT, 0, "the %s run %s was interrupted%s%s"
                     "%s before its harness wrote its results: it has no "
                     "report, so there is nothing to compare",
                     s->role ? s->role : "", s->dir,
                     m->signal ? " by " : "", m->signal ? m->signal : "",
                     status);
}

bp_code bpi_cmp_side_open(struct side *s, struct bp_err *err)
{
  bp_code rc = bpi_manifest_read(&s->manifest, s->dir, err);
  if(rc)
    return rc;
  const char *report = s->manifest.report;
  const char *outcome = s->manifest.outcome;
  if(!report && outcome && !strcmp(outcome, BP_OUTCOME_INTERRUPTED))
    return interrupted_side(s, err);
  if(!report)
    return bpi_err_set(err, BPE_FORMAT, 0, "%s/" BP_RUNDIR_MANIFEST ": no "
                       "\"report\" (was the run's harness output invalid?)",
                       s->dir);
  /* a run directory may come from an untrusted job: its manifest names
   * files inside it, nothing else */
  if(!bpi_rundir_safe_path(report))
    return bpi_err_set(err, BPE_FORMAT, 0, "%s/" BP_RUNDIR_MANIFEST ": "
                       "\"report\" leaves the run directory", s->dir);
  char *text = NULL;
  size_t len = 0;
  char *path = bpi_text_path_join(s->dir, report);
  if(!path)
    rc = bpi_err_set(err, BPE_NOMEM, 0, "compare: report path");
  if(!rc)
    rc = bpi_file_read(path, &text, &len, err);
  if(!rc)
    rc = bpi_report_parse_bmf(&s->report, text, len, path, err);
  if(!rc && index_side(s))
    rc = bpi_err_set(err, BPE_NOMEM, 0, "compare: %s", s->dir);
  free(text);
  free(path);
  return rc;
}

void bpi_cmp_side_cleanup(struct side *s)
{
  bpi_manifest_cleanup(&s->manifest);
  bpi_report_cleanup(&s->report);
  bpi_name_index_cleanup(&s->report_index);
  bpi_name_index_cleanup(&s->url_index);
}

const struct bp_bench *bpi_cmp_report_bench(const struct side *s,
                                            const char *name)
{
  uint32_t i = bpi_name_index_find(&s->report_index, name);
  return i == BP_NONE ? NULL : &s->report.benches[i];
}
static double json_num_or(const cJSON *obj, const char *key, double dflt)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble
                                                       : dflt;
}

static double thread_samples(const cJSON *t)
{
  return json_num_or(t, "samples", -1);
}

/* Whether threads a and b are the same thread of two repetitions: the
 * main thread of a process of one name, under one thread name. */
static bool same_kind(const cJSON *a, const cJSON *b)
{
  const char *keys[] = {"name", "process"};
  for(size_t k = 0; k < 2; k++) {
    const char *x = bpi_json_str(a, keys[k]), *y = bpi_json_str(b, keys[k]);
    if(!x || !y || strcmp(x, y))
      return false;
  }
  return json_num_or(a, "pid", -1) == json_num_or(a, "tid", -2) &&
         json_num_or(b, "pid", -1) == json_num_or(b, "tid", -2);
}

/* The thread with the most samples; with repetitions, among the main
 * threads of that one's kind (one per repetition) the one whose samples
 * are the median: the busiest would be the slowest repetition, which the
 * links would then compare as if it were the run.  *rep is that
 * repetition's number (1-based, the threads of its kind come in the
 * repetitions' order), 0 when the link opens no one repetition of
 * repeat (one run, or not one thread of its kind per repetition). */
static uint32_t link_thread(const cJSON *threads, unsigned repeat,
                            unsigned *rep)
{
  uint32_t i = 0, busiest = 0, n = 0, kind = 0;
  const cJSON *t, *top = NULL;
  *rep = 0;
  cJSON_ArrayForEach(t, threads) {
    if(thread_samples(t) > (top ? thread_samples(top) : -1)) {
      top = t;
      busiest = i;
    }
    i++;
  }
  if(repeat < 2 || !top || !same_kind(top, top))
    return busiest;
  cJSON_ArrayForEach(t, threads)
    n += same_kind(t, top);
  /* the median: the thread with as many of its kind below as above */
  i = 0;
  cJSON_ArrayForEach(t, threads) {
    uint32_t below = 0, equal_before = 0;
    const cJSON *u;
    if(same_kind(t, top)) {
      uint32_t k = 0;
      kind++;
      cJSON_ArrayForEach(u, threads) {
        if(same_kind(u, top)) {
          below += thread_samples(u) < thread_samples(t);
          equal_before += thread_samples(u) == thread_samples(t) &&
                          k < i;
        }
        k++;
      }
      if(below + equal_before == (n - 1) / 2) {
        *rep = n == repeat ? kind : 0;
        return i;
      }
    }
    i++;
  }
  return busiest;
}

/* From summary.json: the thread the viewer links open (link_thread; the
 * Gecko profile's threads come in the same order), the sampled event and
 * the events one sample stands for: "sampled_total" / "samples", else
 * the fixed period, else (a clock sampled at a frequency) 1e9 / Hz. */
void bpi_cmp_profile_facts(struct bp_cmp_profile *p, const char *dir,
                          const char *summary, unsigned repeat)
{
  cJSON *j = NULL;
  struct bp_err ignored = {0};
  p->thread = 0;
  p->link_rep = 0;
  p->repeat = repeat;
  if(!summary || read_json(dir, summary, &j, &ignored))
    return;
  p->thread = link_thread(cJSON_GetObjectItemCaseSensitive(j, "threads"),
                          repeat, &p->link_rep);
  const cJSON *ev = cJSON_GetObjectItemCaseSensitive(j, "event");
  const char *used = bpi_json_str(ev, "used");
  p->event = used ? strdup(used) : NULL;
  p->time_event = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ev,
                                                                "time_based"));
  double samples = json_num_or(j, "samples", 0);
  double total = json_num_or(ev, "sampled_total", 0);
  double period = json_num_or(ev, "period", 0);
  double hz = json_num_or(ev, "frequency_hz", 0);
  if(total > 0 && samples > 0)
    p->per_sample = total / samples;
  else if(period > 0)
    p->per_sample = period;
  else if(p->time_event && hz > 0)
    p->per_sample = 1e9 / hz;
  cJSON_Delete(j);
}

double bpi_cmp_off_cpu_blocked_ns(const char *dir, const char *summary)
{
  cJSON *j = NULL;
  struct bp_err ignored = {0};
  double ns = -1;
  if(summary && !read_json(dir, summary, &j, &ignored)) {
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(j, "off_cpu");
    double ms = json_num_or(o, "blocked_ms", -1);
    ns = ms < 0 ? -1 : ms * 1e6;
  }
  cJSON_Delete(j);
  return ns;
}

/* The runs one benchmark's profile covers: the run's repetitions
 * (benchprof run --repeat), else 1.  Its measures are per repetition
 * (their median), also for a benchmark a harness marked: its counters
 * are summed over the times it was marked in a repetition.  Dividing by
 * those times instead made a harness that marks the same work as 4
 * calls in the base and 2 in the head show every function doubled. */
double bpi_cmp_profile_runs(const struct side *s)
{
  return s->manifest.repeat > 1 ? (double)s->manifest.repeat : 1;
}

double bpi_cmp_marked_runs(const struct side *s,
                           const struct bp_manifest_bench *mb)
{
  if(mb && mb->facts == BP_FACTS_MARKED && mb->runs >= 1)
    return (double)mb->runs;
  return bpi_cmp_profile_runs(s);
}

/* The benchmark iterations one benchmark's profile covers, for costs
 * per iteration: its CPU time (the samples of a clock) over the CPU time
 * of one iteration the harness measured.  That counts every iteration
 * the profile holds, also those of the short runs Google Benchmark makes
 * first to size the measured one, which its "iterations" leave out.  0
 * (unknown: costs per run) for a hardware event, without the harness's
 * CPU time, or for a profile that is not the benchmark's own (a run's
 * profile shared by several benchmarks covers them all). */
double bpi_cmp_profile_iterations(const struct side *s,
                                  const struct bp_manifest_bench *mb,
                                  const struct bp_cmp_profile *p)
{
  if(!mb || !(mb->iteration_cpu_ns > 0) || !p->time_event ||
     !(p->per_sample > 0) || !p->samples)
    return 0;
  if(mb->facts != BP_FACTS_OWN && s->manifest.nbenches != 1)
    return 0;
  return (double)p->samples * p->per_sample / mb->iteration_cpu_ns;
}

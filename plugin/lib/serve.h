/* serve: a local artifact store (a directory laid out as store.h says)
 * served read-only over HTTP for a browser and profiler.firefox.com:
 *   GET/HEAD only (405 otherwise; OPTIONS answers a CORS preflight);
 *   cross-origin reads only from the Firefox Profiler's origin and those
 *   the operator lists (Access-Control-Allow-Origin names the one asking;
 *   a request from any other origin is refused with 403), so a web page
 *   visited while serve runs cannot read the store;
 *   links built from the bound address or the public URL given, never
 *   from the request's Host;
 *   files with the store's content type and encoding (a .json.gz profile
 *   as application/json + Content-Encoding: gzip, so fetch() inflates it);
 *   no way out of the root: dot segments (raw or percent-encoded), empty
 *   segments, NUL and symlinks that resolve outside it are refused;
 *   index pages for projects, branches, commits (newest first), testbeds
 *   and benchmarks, the last with its flame graph inline, its summary and
 *   the profiler.firefox.com/from-url/ link back to this server.
 * The only file that uses libmicrohttpd.  Never prints: the caller gets
 * the bound URL and the links to show.  Requests are answered on a thread
 * of the server's own until bpi_serve_stop. */
#ifndef BP_LIB_SERVE_H
#define BP_LIB_SERVE_H

#include <stdbool.h>
#include <stddef.h>

#include "benchprof/benchprof.h"

struct bp_serve_opts {
  const char *root;  /* the store's directory */
  const char *bind;  /* numeric IPv4 or IPv6 address; NULL: "127.0.0.1" */
  unsigned port;     /* 0: any free port (see bpi_serve_port) */
  /* the URL readers reach this server by (a proxy's, a host name), for
   * the links in pages and printed; NULL: the bound address's URL.  The
   * request's Host header is never used. */
  const char *public_url;
  /* origins (scheme://host[:port]) whose pages may read the store, besides
   * the Firefox Profiler's and the server's own */
  const char *const *allow_origins;
  size_t nallow_origins;
};

/* The only origin allowed by default: the Firefox Profiler fetches
 * profiles from its from-url links. */
#define BP_SERVE_PROFILER_ORIGIN "https://profiler.firefox.com"

/* Whether s is an origin as browsers send it: http or https, a host,
 * an optional port, no path. */
bool bpi_serve_origin_valid(const char *s);

struct bp_serve;

/* Start serving; *sv is NULL on failure. */
bp_code bpi_serve_start(struct bp_serve **sv, const struct bp_serve_opts *o,
                        struct bp_err *err);
/* Stop answering, close the socket and free sv (NULL is fine). */
void bpi_serve_stop(struct bp_serve *sv);

/* The port bound (the one picked for port 0). */
unsigned bpi_serve_port(const struct bp_serve *sv);
/* The index page's URL, "http://127.0.0.1:PORT/" (a wildcard bind
 * address shows as the loopback one, which is what a local browser uses). */
const char *bpi_serve_url(const struct bp_serve *sv);
/* The URL links are made from: the public URL given (ending in '/'),
 * else bpi_serve_url. */
const char *bpi_serve_public_url(const struct bp_serve *sv);

/* One latest profile of a branch: {project}/{branch}/latest/{testbed}.json
 * names a commit whose benchmark has a profile.json.gz. */
struct bp_serve_link {
  char *project;   /* display names (decoded key parts) */
  char *branch;
  char *testbed;
  char *benchmark;
  char *page;      /* the benchmark's index page on this server */
  char *profile;   /* the profile.json.gz's URL on this server */
  char *profiler;  /* https://profiler.firefox.com/from-url/<profile>/ */
};

/* The links for every latest profile in the store now, sorted by
 * project, branch, testbed and benchmark.  Free with
 * bpi_serve_links_free. */
bp_code bpi_serve_latest_links(const struct bp_serve *sv,
                               struct bp_serve_link **links, size_t *n,
                               struct bp_err *err);
void bpi_serve_links_free(struct bp_serve_link *links, size_t n);

/* "https://profiler.firefox.com/from-url/" + url percent-encoded + "/";
 * malloc'd, NULL when out of memory. */
char *bpi_serve_profiler_url(const char *url);

#endif

/* serve_answer: a request routed and answered: the origin checked, a
 * preflight, the method, the URL mapped to a file or directory under the
 * root (serve_paths.c), then a file with the store's content type, a
 * directory's page (serve_pages.c), a redirect to a directory's '/', or a
 * status; the headers every answer carries. */
#include "bp_setup.h"
#include "serve_int.h"
#include "serve_mhd.h"

#include "buf.h"
#include "err.h"
#include "storekey.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


/* Headers every answer carries; CORS only for an allowed origin. */
static void common_headers(struct MHD_Connection *c, struct MHD_Response *r)
{
  const struct watched *w = bpi_serve_watched_of(c);
  if(w && w->allow)
    bpi_mhd_api.add_response_header(r, "Access-Control-Allow-Origin",
                                    w->allow);
  bpi_mhd_api.add_response_header(r, "Vary", "Origin");
  bpi_mhd_api.add_response_header(r, "X-Content-Type-Options", "nosniff");
  bpi_mhd_api.add_response_header(r, "Referrer-Policy", "no-referrer");
}

static enum MHD_Result queue(struct MHD_Connection *c, unsigned status,
                             struct MHD_Response *r)
{
  enum MHD_Result ok;
  if(!r)
    return MHD_NO;
  common_headers(c, r);
  ok = bpi_mhd_api.queue_response(c, status, r);
  bpi_mhd_api.destroy_response(r);
  return ok;
}

static enum MHD_Result answer_text(struct MHD_Connection *c, unsigned status,
                                   const char *text)
{
  struct MHD_Response *r =
    bpi_mhd_api.create_response_from_buffer(strlen(text), (void *)text,
                                        MHD_RESPMEM_PERSISTENT);
  if(r)
    bpi_mhd_api.add_response_header(r, "Content-Type",
                                "text/plain; charset=utf-8");
  if(r && status == MHD_HTTP_METHOD_NOT_ALLOWED)
    bpi_mhd_api.add_response_header(r, "Allow", "GET, HEAD, OPTIONS");
  return queue(c, status, r);
}

static const char *status_text(int status)
{
  switch(status) {
  case MHD_HTTP_BAD_REQUEST:
    return "bad request\n";
  case MHD_HTTP_FORBIDDEN:
    return "forbidden\n";
  case MHD_HTTP_METHOD_NOT_ALLOWED:
    return "method not allowed: this store is read-only\n";
  case MHD_HTTP_INTERNAL_SERVER_ERROR:
    return "internal error\n";
  default:
    return "not found\n";
  }
}

static enum MHD_Result answer_status(struct MHD_Connection *c, int status)
{
  return answer_text(c, (unsigned)status, status_text(status));
}

static bool ends_with(const char *s, const char *suffix)
{
  size_t len = strlen(s), slen = strlen(suffix);
  return len >= slen && !strcmp(s + len - slen, suffix);
}

/* The store's content type and encoding for an artifact (as store.h's
 * bpi_store_content_type, which the publisher uses when it writes).
 * Anything else is plain text: a stored page or script never runs on
 * this origin. */
static void content_type(const char *file, const char **type,
                         const char **encoding)
{
  *encoding = NULL;
  if(ends_with(file, ".json.gz")) {
    *type = "application/json";
    *encoding = "gzip";   /* fetch() inflates it */
  }
  else if(ends_with(file, ".gz"))
    *type = "application/octet-stream";   /* pprof: gzip by format */
  else if(ends_with(file, ".svg"))
    *type = "image/svg+xml";
  else if(ends_with(file, ".json"))
    *type = "application/json";
  else
    *type = "text/plain; charset=utf-8";
}

static enum MHD_Result answer_file(struct MHD_Connection *c,
                                   const char *real, const char *name)
{
  struct stat st;
  const char *type, *encoding;
  int fd = open(real, O_RDONLY | O_CLOEXEC);
  if(fd < 0)
    return answer_status(c, errno == EACCES ? MHD_HTTP_FORBIDDEN
                                            : MHD_HTTP_NOT_FOUND);
  if(fstat(fd, &st) || !S_ISREG(st.st_mode)) {
    close(fd);
    return answer_status(c, MHD_HTTP_NOT_FOUND);
  }
  /* takes fd: MHD closes it with the response */
  struct MHD_Response *r =
    bpi_mhd_api.create_response_from_fd64((uint64_t)st.st_size, fd);
  if(!r) {
    close(fd);
    return MHD_NO;
  }
  content_type(name, &type, &encoding);
  bpi_mhd_api.add_response_header(r, "Content-Type", type);
  if(encoding)
    bpi_mhd_api.add_response_header(r, "Content-Encoding", encoding);
  bpi_mhd_api.add_response_header(r, "Cache-Control", "no-cache");
  return queue(c, MHD_HTTP_OK, r);
}

static enum MHD_Result answer_page(const struct bp_serve *sv,
                                   struct MHD_Connection *c,
                                   const struct target *t, const char *real)
{
  struct bp_buf b;
  struct bp_err err = {0};
  struct MHD_Response *r = NULL;
  bpi_buf_init(&b);
  if(!bpi_serve_page_dir(sv, &b, t, real, &err) && !bpi_buf_failed(&b))
    r = bpi_mhd_api.create_response_from_buffer(b.len, b.data,
                                            MHD_RESPMEM_MUST_COPY);
  bpi_buf_cleanup(&b);
  if(!r)
    return answer_status(c, err.code == BPE_IO
                              ? MHD_HTTP_FORBIDDEN
                              : MHD_HTTP_INTERNAL_SERVER_ERROR);
  bpi_mhd_api.add_response_header(r, "Content-Type",
                              "text/html; charset=utf-8");
  bpi_mhd_api.add_response_header(r, "Cache-Control", "no-cache");
  /* names in pages come from whoever ran the benchmark: even escaped, a
   * page may load nothing but this server's own files */
  bpi_mhd_api.add_response_header(r, "Content-Security-Policy",
                              "default-src 'none'; "
                              "style-src 'unsafe-inline'; "
                              "img-src 'self'; object-src 'self'; "
                              "frame-src 'self'; base-uri 'none'; "
                              "form-action 'none'");
  return queue(c, MHD_HTTP_OK, r);
}

/* A directory asked for without its '/': send the browser there, so the
 * page's relative links resolve inside it. */
static enum MHD_Result answer_redirect(struct MHD_Connection *c,
                                       const struct target *t)
{
  struct bp_buf b;
  struct MHD_Response *r = NULL;
  bpi_buf_init(&b);
  bpi_serve_add_path(&b, (char *const *)t->parts, t->n, true);
  bpi_buf_addc(&b, '\0');
  if(!bpi_buf_failed(&b))
    r = bpi_mhd_api.create_response_from_buffer(0, (void *)"",
                                            MHD_RESPMEM_PERSISTENT);
  if(r)
    bpi_mhd_api.add_response_header(r, "Location", b.data);
  bpi_buf_cleanup(&b);
  return queue(c, MHD_HTTP_MOVED_PERMANENTLY, r);
}

static enum MHD_Result answer_preflight(struct MHD_Connection *c)
{
  struct MHD_Response *r =
    bpi_mhd_api.create_response_from_buffer(0, (void *)"",
                                        MHD_RESPMEM_PERSISTENT);
  const char *asked = bpi_mhd_api.lookup_connection_value(
    c, MHD_HEADER_KIND, "Access-Control-Request-Headers");
  if(r) {
    bpi_mhd_api.add_response_header(r, "Access-Control-Allow-Methods",
                                "GET, HEAD, OPTIONS");
    /* reading is harmless whatever the headers: allow the ones asked */
    if(asked && strlen(asked) < 1024 && !strpbrk(asked, "\r\n"))
      bpi_mhd_api.add_response_header(r, "Access-Control-Allow-Headers",
                                      asked);
    bpi_mhd_api.add_response_header(r, "Access-Control-Max-Age", "86400");
    bpi_mhd_api.add_response_header(r, "Allow", "GET, HEAD, OPTIONS");
  }
  return queue(c, MHD_HTTP_NO_CONTENT, r);
}

/* .../index.html, the static pages' name (site.h: never a name's key
 * part): its directory's page, so the same links work here and in a
 * bucket website. */
static void page_target(struct target *t)
{
  if(!t->n || strcmp(t->parts[t->n - 1], BP_STORE_PAGE))
    return;
  free(t->parts[--t->n]);
  t->parts[t->n] = NULL;
  t->slash = true;
  char *slash = strrchr(t->path, '/');
  if(slash)
    *slash = '\0';
}

/* A request from a web page carries its Origin: only the Firefox
 * Profiler's, the operator's and this server's own may read the store
 * (a page elsewhere could otherwise read function names and paths while
 * serve runs).  No Origin (a navigation, curl): allowed.  Remembers the
 * origin to name in Access-Control-Allow-Origin. */
static bool origin_allowed(const struct bp_serve *sv,
                           struct MHD_Connection *c)
{
  const char *origin = bpi_mhd_api.lookup_connection_value(c, MHD_HEADER_KIND,
                                                       "Origin");
  struct watched *w = bpi_serve_watched_of(c);
  const char *allow = NULL;
  for(size_t i = 0; origin && i < sv->norigins && !allow; i++)
    if(!strcmp(origin, sv->origins[i]))
      allow = sv->origins[i];
  if(w)
    w->allow = allow;   /* only the server's thread reads it */
  return !origin || allow;
}

enum MHD_Result bpi_serve_answer(void *cls, struct MHD_Connection *c,
                                 const char *url, const char *method,
                                 const char *version, const char *upload_data,
                                 size_t *upload_data_size, void **con_cls)
{
  const struct bp_serve *sv = cls;
  struct target t;
  struct stat st;
  char *real = NULL;
  int status;
  enum MHD_Result ok;
  (void)version;
  (void)upload_data;
  (void)con_cls;
  bpi_serve_set_waiting((struct bp_serve *)cls, c, false);
  *upload_data_size = 0;  /* a body is never read */
  if(!origin_allowed(sv, c))
    return answer_status(c, MHD_HTTP_FORBIDDEN);
  if(!strcmp(method, MHD_HTTP_METHOD_OPTIONS))
    return answer_preflight(c);
  if(strcmp(method, MHD_HTTP_METHOD_GET) &&
     strcmp(method, MHD_HTTP_METHOD_HEAD))
    return answer_status(c, MHD_HTTP_METHOD_NOT_ALLOWED);
  status = bpi_serve_parse_target(sv, url, &t);
  if(!status)
    page_target(&t);
  if(!status && !bpi_serve_inside_root(sv, t.path, &st, &real, &status))
    real = NULL;
  if(status)
    ok = answer_status(c, status);
  else if(S_ISDIR(st.st_mode) && !t.slash && t.n)
    ok = answer_redirect(c, &t);
  else if(S_ISDIR(st.st_mode))
    ok = answer_page(sv, c, &t, real);
  else if(S_ISREG(st.st_mode) && !t.slash)
    ok = answer_file(c, real, t.parts[t.n - 1]);
  else
    ok = answer_status(c, MHD_HTTP_NOT_FOUND);
  free(real);
  bpi_serve_target_cleanup(&t);
  return ok;
}

/* MHD would decode %XX before answer() sees the URL, so "%2F" and "/"
 * would look alike; parse_target decodes each segment itself. */
size_t bpi_serve_keep_escaped(void *cls, struct MHD_Connection *c, char *s)
{
  (void)cls;
  (void)c;
  return strlen(s);
}

/* store: the three backends (file, s3, http), one table
 * of operations each, chosen by the URL's scheme.  Network backends talk
 * through http.c; the file backend writes through fileio.c.
 *
 * Keys travel as '/'-joined parts that bpi_store_key_part made safe; they
 * are checked again here (no empty part, no dot-segment, no control
 * character) so a key can never leave the store's root.  In a URL each
 * part is escaped once more, so the part "feature%2Fx" is the URL segment
 * "feature%252Fx" and a server that decodes once gets the part back. */
#include "bp_setup.h"
#include "store.h"
#include "storekey.h"
#include "buf.h"
#include "err.h"
#include "fileio.h"
#include "text.h"

#include <arpa/inet.h>
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct store_ops;

struct bp_store {
  const struct store_ops *ops;
  char *url;          /* as given, for messages */
  char *public_url;   /* readers' base, no trailing '/'; NULL: default */
  char *base;         /* file: the directory; http: the URL without a
                         trailing '/'; s3: the URL of the bucket's root
                         (prefix included) */
  char *bearer;
  /* s3 */
  char *region;
  char *aws_key;
  char *aws_secret;
  char *aws_token;
  struct bp_http_opts http;
  char *ca_file;
};

struct store_ops {
  const char *scheme;     /* "s3://" */
  bp_code (*open)(struct bp_store *st, const struct bp_store_opts *o,
                  struct bp_err *err);
  /* data/len or path (a file), never both */
  bp_code (*put)(struct bp_store *st, const char *key, const void *data,
                 size_t len, const char *path, const char *content_type,
                 const char *content_encoding, struct bp_err *err);
  bp_code (*get)(struct bp_store *st, const char *key, char **data,
                 size_t *len, struct bp_err *err);
  /* absent: the caller has just found no object at key (a hint) */
  bp_code (*update)(struct bp_store *st, const char *key,
                    const char *content_type, bool absent,
                    int (*decide)(void *, const char *, size_t, char **),
                    void *ctx, struct bp_err *err);
};

/* ------------------------------------------------------------ key parts */

static char *buf_finish(struct bp_buf *b)
{
  bpi_buf_addc(b, '\0');
  if(bpi_buf_failed(b)) {
    bpi_buf_cleanup(b);
    return NULL;
  }
  return b->data;
}

/* A key is parts that key_part could have made: no empty part, no
 * dot-segment, nothing outside bpi_store_key_char, '%' and '~' (a bounded
 * part's hash, the run's own artifacts), no part over 255 bytes (what
 * a file name may have; key parts stay under BP_STORE_KEY_PART_MAX). */
static bp_code check_key(const char *key, struct bp_err *err)
{
  const char *p = key;
  for(;;) {
    size_t n = strcspn(p, "/");
    if(!n || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
      return bpi_err_set(err, BPE_INVAL, 0, "bad store key '%.200s': empty "
                         "or dot part", key);
    if(n > 255)
      return bpi_err_set(err, BPE_INVAL, 0, "bad store key '%.200s': a part "
                         "longer than 255 bytes", key);
    for(size_t i = 0; i < n; i++)
      if(!bpi_store_key_char((unsigned char)p[i]) && p[i] != '%' &&
         p[i] != '~')
        return bpi_err_set(err, BPE_INVAL, 0, "bad store key '%.200s': "
                           "byte 0x%02x not encoded", key,
                           (unsigned char)p[i]);
    if(!p[n])
      return BP_OK;
    p += n + 1;
  }
}

/* Append key to b with each part escaped for a URL path. */
static void add_escaped_key(struct bp_buf *b, const char *key)
{
  const char *p = key;
  for(;;) {
    size_t n = strcspn(p, "/");
    char part[1024];
    char *esc = NULL;
    if(n < sizeof(part)) {
      memcpy(part, p, n);
      part[n] = '\0';
      esc = bpi_http_escape(part);
    }
    if(!esc) {
      b->failed = true;
      return;
    }
    bpi_buf_adds(b, esc);
    free(esc);
    if(!p[n])
      return;
    bpi_buf_addc(b, '/');
    p += n + 1;
  }
}

/* base + "/" + escaped key; malloc'd, NULL when out of memory. */
static char *join_url(const char *base, const char *key)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_buf_adds(&b, base);
  bpi_buf_addc(&b, '/');
  add_escaped_key(&b, key);
  return buf_finish(&b);
}

void bpi_store_content_type(const char *file, const char **type,
                            const char **encoding)
{
  size_t n = strlen(file);
#define ENDS(s) (n >= sizeof(s) - 1 && !strcmp(file + n - (sizeof(s) - 1), s))
  *encoding = NULL;
  if(ENDS(".json.gz")) {
    *type = "application/json";
    *encoding = "gzip";
  }
  else if(ENDS(".pb.gz"))
    *type = "application/octet-stream";
  else if(ENDS(".svg"))
    *type = "image/svg+xml";
  else if(ENDS(".json"))
    *type = "application/json";
  else
    *type = "text/plain; charset=utf-8";
#undef ENDS
}

/* ------------------------------------------------------------ helpers */

static bool starts_with(const char *s, const char *prefix)
{
  return !strncmp(s, prefix, strlen(prefix));
}

bool bpi_store_url_is_local(const char *url)
{
  return url && starts_with(url, "file://");
}

/* s without trailing '/'s, malloc'd. */
static char *dup_trimmed(const char *s)
{
  size_t n = strlen(s);
  while(n > 1 && s[n - 1] == '/')
    n--;
  char *d = malloc(n + 1);
  if(d) {
    memcpy(d, s, n);
    d[n] = '\0';
  }
  return d;
}

static bool dup_opt(char **dst, const char *src)
{
  if(!src)
    return true;
  *dst = strdup(src);
  return *dst != NULL;
}

/* An http(s) URL that is fine as a base: scheme, a host, no credentials,
 * no query or fragment. */
static bp_code check_base_url(const char *what, const char *url,
                              struct bp_err *err)
{
  const char *host;
  if(starts_with(url, "https://"))
    host = url + 8;
  else if(starts_with(url, "http://"))
    host = url + 7;
  else
    return bpi_err_set(err, BPE_INVAL, 0, "%s: not an http(s) URL", what);
  size_t hl = strcspn(host, "/");
  if(!hl)
    return bpi_err_set(err, BPE_INVAL, 0, "%s: no host in the URL", what);
  if(memchr(host, '@', hl))   /* never echo it: it holds a password */
    return bpi_err_set(err, BPE_INVAL, 0, "%s: credentials do not belong "
                       "in the URL (use the token or AWS variables)", what);
  char shown[BP_HTTP_URL_SHOWN];
  bpi_http_url_shown(shown, url);   /* a query may hold a token */
  if(strpbrk(url, "?# \t\r\n"))
    return bpi_err_set(err, BPE_INVAL, 0, "%s '%s': no query, fragment "
                       "or blanks allowed", what, shown);
  return BP_OK;
}

/* Copy the caller's http options, with their CA file string. */
static bool copy_http(struct bp_store *st, const struct bp_http_opts *o)
{
  if(!o) {
    bpi_http_opts_default(&st->http);
    return true;
  }
  st->http = *o;
  st->http.ca_file = NULL;
  if(!dup_opt(&st->ca_file, o->ca_file))
    return false;
  st->http.ca_file = st->ca_file;
  return true;
}

/* Turn a failed http answer into the store's error: a 404 to a GET is
 * BPE_NOT_FOUND (unless S3 says the bucket itself is missing). */
static bp_code http_error(struct bp_store *st, const char *method,
                          const char *key, const struct bp_http_resp *resp,
                          const struct bp_err *got, struct bp_err *err)
{
  if(!strcmp(method, "GET") && resp->status == 404 &&
     !(resp->body.data && strstr(resp->body.data, "NoSuchBucket")))
    return bpi_err_set(err, BPE_NOT_FOUND, 0, "no object '%.200s' in %.200s",
                       key, st->url);
  return bpi_err_set(err, got->code, got->sys_errno, "%s", got->msg);
}

/* ------------------------------------------------------------ file */

static bp_code file_open(struct bp_store *st, const struct bp_store_opts *o,
                         struct bp_err *err)
{
  const char *path = o->url + strlen("file://");
  char shown[BP_HTTP_URL_SHOWN];
  bpi_http_url_shown(shown, o->url);
  if(starts_with(path, "localhost/"))
    path += strlen("localhost");
  if(path[0] != '/')
    return bpi_err_set(err, BPE_INVAL, 0, "store '%s': a file URL needs "
                       "an absolute path (file:///dir)", shown);
  if(strpbrk(path, "?#"))
    return bpi_err_set(err, BPE_INVAL, 0, "store '%s': no query or "
                       "fragment allowed", shown);
  char *dir = dup_trimmed(path);
  if(!dir)
    return bpi_err_set(err, BPE_NOMEM, 0, "out of memory");
  /* the path of a file URL is percent-encoded (and nothing more: a '~'
   * in it is a '~', not a key part's bound or a suite's separator) */
  struct bp_buf decoded;
  bpi_buf_init(&decoded);
  bpi_text_pct_decode(&decoded, dir, strlen(dir), false);
  bpi_buf_addc(&decoded, '\0');
  free(dir);
  if(bpi_buf_failed(&decoded)) {
    bpi_buf_cleanup(&decoded);
    return bpi_err_set(err, BPE_NOMEM, 0, "out of memory");
  }
  st->base = decoded.data;
  return BP_OK;
}

/* The whole file, raw (a gzipped object stays gzipped). */
static bp_code read_raw(const char *path, char **out, size_t *len,
                        bool missing_ok, struct bp_err *err)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if(fd < 0) {
    if(errno == ENOENT && missing_ok)
      return BPE_NOT_FOUND;
    return bpi_err_set(err, BPE_IO, errno, "cannot open '%s'", path);
  }
  struct bp_buf b;
  bpi_buf_init(&b);
  bp_code rc = BP_OK;
  char chunk[65536];
  for(;;) {
    ssize_t n = read(fd, chunk, sizeof(chunk));
    if(n < 0 && errno == EINTR)
      continue;
    if(n < 0) {
      rc = bpi_err_set(err, BPE_IO, errno, "cannot read '%s'", path);
      break;
    }
    if(!n)
      break;
    bpi_buf_add(&b, chunk, (size_t)n);
  }
  close(fd);
  if(!rc) {
    *len = b.len;
    *out = buf_finish(&b);
    if(!*out)
      rc = bpi_err_set(err, BPE_NOMEM, 0, "out of memory reading '%s'",
                       path);
  }
  else
    bpi_buf_cleanup(&b);
  return rc;
}

static char *file_path(const struct bp_store *st, const char *key)
{
  return bpi_text_path_join(strcmp(st->base, "/") ? st->base : "", key);
}

/* The directories above path (path's own name excluded). */
static bp_code file_parents(char *path, struct bp_err *err)
{
  char *slash = strrchr(path, '/');
  *slash = '\0';
  bp_code rc = bpi_file_mkdirs(path[0] ? path : "/", err);
  *slash = '/';
  return rc;
}

/* src hard linked as path; over an object already there, through a
 * temporary name and a rename (replaced whole, as a copy would be): 0, or
 * the errno that says why not.  A link allocates no inode and copies no
 * byte: a suite's thousands of artifacts, on the run directory's file
 * system, cost a directory entry each.  benchprof never rewrites a
 * file in place (fileio.c writes a new one and links or renames it into
 * place), so the run directory and the store keep the same bytes. */
static int link_into(const char *src, const char *path)
{
  static atomic_uint seq;
  char tmp[PATH_MAX];
  /* a symbolic link's target, as a copy through open(2) would read;
   * a new key is linked under its own name at once (as atomic as the
   * rename, one directory operation instead of three) */
  if(!linkat(AT_FDCWD, src, AT_FDCWD, path, AT_SYMLINK_FOLLOW))
    return 0;
  if(errno != EEXIST)
    return errno;
  if((size_t)snprintf(tmp, sizeof(tmp), "%s.lnk%ld-%u", path,
                      (long)getpid(), atomic_fetch_add(&seq, 1)) >=
     sizeof(tmp))
    return ENAMETOOLONG;
  if(linkat(AT_FDCWD, src, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW))
    return errno;
  int e = rename(tmp, path) ? errno : 0;
  /* rename between two links of one file does nothing and succeeds
   * (the same artifact published again): the temporary name goes */
  unlink(tmp);
  return e;
}

static bp_code file_put(struct bp_store *st, const char *key,
                        const void *data, size_t len, const char *src,
                        const char *content_type,
                        const char *content_encoding, struct bp_err *err)
{
  (void)content_type;
  (void)content_encoding;
  char *copy = NULL;
  char *path = file_path(st, key);
  bp_code rc = BP_OK;
  if(!path)
    return bpi_err_set(err, BPE_NOMEM, 0, "out of memory");
  if(src) {
    /* the parents are made only when the link says they are missing:
     * most objects go where an earlier one made them */
    int e = link_into(src, path);
    if(e == ENOENT && !access(src, F_OK) && !(rc = file_parents(path, err)))
      e = link_into(src, path);
    if(rc || !e)
      goto out;
    /* another file system, or links refused: a copy */
    rc = read_raw(src, &copy, &len, false, err);
    if(rc)
      goto out;
    data = copy;
  }
  rc = file_parents(path, err);
  if(!rc)
    rc = bpi_file_write(path, data, len, false, err);
out:
  free(copy);
  free(path);
  return rc;
}

static bp_code file_get(struct bp_store *st, const char *key, char **data,
                        size_t *len, struct bp_err *err)
{
  char *path = file_path(st, key);
  if(!path)
    return bpi_err_set(err, BPE_NOMEM, 0, "out of memory");
  bp_code rc = read_raw(path, data, len, true, err);
  if(rc == BPE_NOT_FOUND)
    rc = bpi_err_set(err, BPE_NOT_FOUND, ENOENT, "no object '%.200s' in "
                     "%.200s", key, st->url);
  free(path);
  return rc;
}

/* The file store's update: under an exclusive flock of the object's
 * directory (no lock file to show up in listings), so every writer of
 * a key there takes its turn. */
static bp_code file_update(struct bp_store *st, const char *key,
                           const char *content_type, bool absent,
                           int (*decide)(void *, const char *, size_t,
                                         char **),
                           void *ctx, struct bp_err *err)
{
  (void)content_type;
  (void)absent;   /* reading a file under the lock costs next to nothing */
  char *path = file_path(st, key);
  char *slash = path ? strrchr(path, '/') : NULL;
  if(!slash) {
    free(path);
    return bpi_err_set(err, BPE_NOMEM, 0, "out of memory");
  }
  *slash = '\0';
  const char *dir = path[0] ? path : "/";
  bp_code rc = bpi_file_mkdirs(dir, err);
  int fd = rc ? -1 : open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if(!rc && fd < 0)
    rc = bpi_err_set(err, BPE_IO, errno, "cannot open '%s'", dir);
  while(!rc && flock(fd, LOCK_EX)) {
    if(errno != EINTR)
      rc = bpi_err_set(err, BPE_IO, errno, "cannot lock '%s'", dir);
  }
  *slash = '/';
  char *cur = NULL, *out = NULL;
  size_t len = 0;
  bp_code got = rc ? rc : read_raw(path, &cur, &len, true, err);
  if(!rc && got == BPE_NOT_FOUND) {
    bpi_err_clear(err);
    got = BP_OK;
    cur = NULL;
  }
  rc = got;
  int d = rc ? 0 : decide(ctx, cur, len, &out);
  if(!rc && d < 0)
    rc = bpi_err_set(err, BPE_NOMEM, 0, "updating '%.200s'", key);
  /* written atomically (rename) under this lock: never caught mid-write */
  if(!rc && d == BP_STORE_REREAD)
    rc = bpi_err_set(err, BPE_FORMAT, 0, "'%s' is not valid: remove it, "
                     "then publish again", path);
  if(!rc && d == 1)
    rc = bpi_file_write(path, out, strlen(out), false, err);
  if(fd >= 0)
    close(fd);  /* releases the lock, after the rename */
  free(cur);
  free(out);
  free(path);
  return rc;
}

/* ------------------------------------------------------------ http */

static bp_code http_open(struct bp_store *st, const struct bp_store_opts *o,
                         struct bp_err *err)
{
  bp_code rc = check_base_url("store", o->url, err);
  if(rc)
    return rc;
  st->base = dup_trimmed(o->url);
  if(!st->base || !dup_opt(&st->bearer, o->bearer))
    return bpi_err_set(err, BPE_NOMEM, 0, "out of memory");
  return BP_OK;
}

/* One request to the object key: PUT (data or file) or GET, with extra
 * headers (conditional writes) when headers is not NULL. */
static bp_code object_request_if(struct bp_store *st, const char *method,
                                 const char *key, const void *data,
                                 size_t len, const char *path,
                                 const char *content_type,
                                 const char *content_encoding,
                                 const char *const *headers,
                                 struct bp_http_resp *resp,
                                 struct bp_err *err)
{
  char *url = join_url(st->base, key);
  if(!url)
    return bpi_err_set(err, BPE_NOMEM, 0, "out of memory");
  struct bp_http_req req = {
    .method = method,
    .url = url,
    .headers = headers,
    .content_type = content_type,
    .content_encoding = content_encoding,
    .bearer = st->bearer,
    .body = data,   /* NULL for a GET or a file */
    .body_len = data ? len : 0,
    .body_file = path,
  };
  if(st->region) {
    req.aws_region = st->region;
    req.aws_key = st->aws_key;
    req.aws_secret = st->aws_secret;
    req.aws_session_token = st->aws_token;
    req.bearer = NULL;
  }
  struct bp_err got = { 0 };
  bp_code rc = bpi_http_send(&st->http, &req, resp, &got);
  if(rc)
    rc = http_error(st, method, key, resp, &got, err);
  free(url);
  return rc;
}

static bp_code object_request(struct bp_store *st, const char *method,
                              const char *key, const void *data, size_t len,
                              const char *path, const char *content_type,
                              const char *content_encoding,
                              struct bp_http_resp *resp, struct bp_err *err)
{
  return object_request_if(st, method, key, data, len, path, content_type,
                           content_encoding, NULL, resp, err);
}

static bp_code net_put(struct bp_store *st, const char *key,
                       const void *data, size_t len, const char *path,
                       const char *content_type,
                       const char *content_encoding, struct bp_err *err)
{
  struct bp_http_resp resp;
  bpi_http_resp_init(&resp);
  bp_code rc = object_request(st, "PUT", key, data, len, path, content_type,
                              content_encoding, &resp, err);
  bpi_http_resp_cleanup(&resp);
  return rc;
}

static bp_code net_get(struct bp_store *st, const char *key, char **data,
                       size_t *len, struct bp_err *err)
{
  struct bp_http_resp resp;
  bpi_http_resp_init(&resp);
  bp_code rc = object_request(st, "GET", key, NULL, 0, NULL, NULL, NULL,
                              &resp, err);
  if(!rc) {
    *len = resp.body.len;
    *data = buf_finish(&resp.body);   /* hands the memory over */
    bpi_buf_init(&resp.body);
    if(!*data)
      rc = bpi_err_set(err, BPE_NOMEM, 0, "out of memory");
  }
  bpi_http_resp_cleanup(&resp);
  return rc;
}

#define UPDATE_TRIES 8

/* http(s) and s3: GET with its ETag, decide, PUT on that condition; a 412
 * means another writer came between: read and decide again.  absent: the
 * first try takes the caller's word that there is none (no GET) and
 * writes with If-None-Match: *. */
static bp_code net_update(struct bp_store *st, const char *key,
                          const char *content_type, bool absent_first,
                          int (*decide)(void *, const char *, size_t,
                                        char **),
                          void *ctx, struct bp_err *err)
{
  bool reread = false;
  for(int tries = 0; tries < UPDATE_TRIES; tries++) {
    struct bp_http_resp resp;
    struct bp_err got = {0};
    char cond[200];
    char *out = NULL;
    bpi_http_resp_init(&resp);
    bp_code rc = tries == 0 && absent_first
                   ? BPE_NOT_FOUND
                   : object_request(st, "GET", key, NULL, 0, NULL, NULL,
                                    NULL, &resp, &got);
    bool absent = rc == BPE_NOT_FOUND;
    if(rc && !absent) {
      bpi_http_resp_cleanup(&resp);
      return bpi_err_set(err, rc, got.sys_errno, "%s", got.msg);
    }
    if(absent)
      snprintf(cond, sizeof(cond), "If-None-Match: *");
    else if(resp.etag[0])
      snprintf(cond, sizeof(cond), "If-Match: %s", resp.etag);
    else
      cond[0] = '\0';   /* a server without ETags: a plain PUT */
    bpi_buf_addc(&resp.body, '\0');
    int d = decide(ctx, absent ? NULL : resp.body.data,
                   absent ? 0 : resp.body.len - 1, &out);
    bpi_http_resp_cleanup(&resp);
    if(d == BP_STORE_REREAD) {
      free(out);
      reread = true;
      struct timespec pause = {0, 20000000L * (tries + 1)};
      nanosleep(&pause, NULL);
      continue;
    }
    reread = false;
    if(d <= 0) {
      free(out);
      return d < 0 ? bpi_err_set(err, BPE_NOMEM, 0, "updating '%.200s'", key)
                   : BP_OK;
    }
    const char *headers[] = {cond[0] ? cond : NULL, NULL};
    struct bp_err put_err = {0};
    bpi_http_resp_init(&resp);
    rc = object_request_if(st, "PUT", key, out, strlen(out), NULL,
                           content_type, NULL, headers, &resp, &put_err);
    long status = resp.status;
    bpi_http_resp_cleanup(&resp);
    free(out);
    if(!rc)
      return BP_OK;
    if(status != 412)
      return bpi_err_set(err, rc, put_err.sys_errno, "%s", put_err.msg);
  }
  if(reread)
    return bpi_err_set(err, BPE_FORMAT, 0, "GET %.200s: not a valid object "
                       "in %d reads: remove it, then publish again", key,
                       UPDATE_TRIES);
  return bpi_err_set(err, BPE_NET, 0, "PUT %.200s: other writers kept "
                     "changing it (%d tries)", key, UPDATE_TRIES);
}

/* ------------------------------------------------------------ s3 */

static bool bucket_ok(const char *b, size_t n)
{
  if(n < 1 || n > 63)
    return false;
  for(size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)b[i];
    if(!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_'))
      return false;
  }
  return true;
}

/* Whether endpoint's host is an IP address (v4, or v6 in brackets) or
 * localhost: "bucket.127.0.0.1" resolves nowhere, so such an endpoint
 * (MinIO, a test server) gets path-style URLs whatever path_style says,
 * as the AWS SDKs and curl-based clients do. */
static bool endpoint_needs_path_style(const char *endpoint)
{
  const char *host = strstr(endpoint, "://");
  if(!host)
    return false;
  host += 3;
  size_t n = strcspn(host, "/");
  if(n && host[0] == '[')
    return true;
  size_t hn = strcspn(host, ":/");   /* without the port */
  char name[64];
  if(!hn || hn >= sizeof(name))
    return false;
  memcpy(name, host, hn);
  name[hn] = '\0';
  struct in_addr a;
  return !strcasecmp(name, "localhost") || inet_pton(AF_INET, name, &a) == 1;
}

static bp_code s3_open(struct bp_store *st, const struct bp_store_opts *o,
                       struct bp_err *err)
{
  const char *bucket = o->url + strlen("s3://");
  size_t bn = strcspn(bucket, "/");
  char shown[BP_HTTP_URL_SHOWN];
  bpi_http_url_shown(shown, o->url);
  if(!bucket_ok(bucket, bn))
    return bpi_err_set(err, BPE_INVAL, 0, "store '%s': bad bucket name "
                       "(s3://bucket/prefix)", shown);
  const char *prefix = bucket + bn;
  while(*prefix == '/')
    prefix++;
  if(strpbrk(prefix, "?#"))
    return bpi_err_set(err, BPE_INVAL, 0, "store '%s': no query or "
                       "fragment allowed", shown);
  st->region = strdup(o->s3_region ? o->s3_region : "us-east-1");
  if(!st->region)
    return bpi_err_set(err, BPE_NOMEM, 0, "out of memory");
  if(strpbrk(st->region, "/: \t\r\n") || !st->region[0])
    return bpi_err_set(err, BPE_INVAL, 0, "bad S3 region '%.64s'",
                       st->region);

  struct bp_buf endpoint;
  bpi_buf_init(&endpoint);
  if(o->s3_endpoint) {
    bp_code rc = check_base_url("S3 endpoint", o->s3_endpoint, err);
    if(rc)
      return rc;
    char *e = dup_trimmed(o->s3_endpoint);
    if(e)
      bpi_buf_adds(&endpoint, e);
    else
      endpoint.failed = true;
    free(e);
  }
  else
    bpi_buf_printf(&endpoint, "https://s3.%s.amazonaws.com", st->region);
  bpi_buf_addc(&endpoint, '\0');

  /* the bucket's root: endpoint/bucket or scheme://bucket.host */
  struct bp_buf b;
  bpi_buf_init(&b);
  if(!bpi_buf_failed(&endpoint)) {
    if(o->s3_path_style || endpoint_needs_path_style(endpoint.data))
      bpi_buf_printf(&b, "%s/%.*s", endpoint.data, (int)bn, bucket);
    else {
      const char *host = strstr(endpoint.data, "://") + 3;
      bpi_buf_printf(&b, "%.*s%.*s.%s", (int)(host - endpoint.data),
                     endpoint.data, (int)bn, bucket, host);
    }
  }
  bpi_buf_cleanup(&endpoint);
  /* the prefix: its segments are names, escaped like key parts */
  while(*prefix) {
    size_t n = strcspn(prefix, "/");
    if(n) {
      char seg[1024];
      if(n >= sizeof(seg)) {
        bpi_buf_cleanup(&b);
        return bpi_err_set(err, BPE_INVAL, 0, "S3 prefix too long");
      }
      memcpy(seg, prefix, n);
      seg[n] = '\0';
      char *esc = bpi_http_escape(seg);
      if(!esc)
        b.failed = true;
      else {
        bpi_buf_addc(&b, '/');
        bpi_buf_adds(&b, esc);
      }
      free(esc);
    }
    prefix += n;
    while(*prefix == '/')
      prefix++;
  }
  st->base = buf_finish(&b);
  if(!st->base || !dup_opt(&st->aws_key, o->aws_key) ||
     !dup_opt(&st->aws_secret, o->aws_secret) ||
     !dup_opt(&st->aws_token, o->aws_session_token))
    return bpi_err_set(err, BPE_NOMEM, 0, "out of memory");
  if(!st->aws_key != !st->aws_secret)
    return bpi_err_set(err, BPE_INVAL, 0, "store '%.200s': the AWS access "
                       "key and secret key go together", o->url);
  return BP_OK;
}

/* ------------------------------------------------------------ table */

static const struct store_ops backends[] = {
  { "file://", file_open, file_put, file_get, file_update },
  { "s3://", s3_open, net_put, net_get, net_update },
  { "http://", http_open, net_put, net_get, net_update },
  { "https://", http_open, net_put, net_get, net_update },
};

bp_code bpi_store_list(struct bp_store *st, const char *dir,
                       void (*each)(void *ctx, const char *name), void *ctx,
                       struct bp_err *err)
{
  if(st->ops != &backends[0])   /* the file store's only: see store.h */
    return bpi_err_set(err, BPE_INVAL, 0, "store %.200s: not listed",
                       st->url);
  bp_code rc = check_key(dir, err);
  char *path = rc ? NULL : file_path(st, dir);
  if(!rc && !path)
    rc = bpi_err_set(err, BPE_NOMEM, 0, "out of memory");
  DIR *d = path ? opendir(path) : NULL;
  if(path && !d)
    rc = bpi_err_set(err, errno == ENOENT ? BPE_NOT_FOUND : BPE_IO, errno,
                     "listing '%.200s' in %.200s", dir, st->url);
  for(struct dirent *e; d && (e = readdir(d)) != NULL;)
    if(e->d_name[0] != '.')
      each(ctx, e->d_name);
  if(d)
    closedir(d);
  free(path);
  return rc;
}

bp_code bpi_store_update(struct bp_store *st, const char *key,
                         const char *content_type,
                         int (*decide)(void *ctx, const char *cur,
                                       size_t len, char **out),
                         void *ctx, struct bp_err *err)
{
  bp_code rc = check_key(key, err);
  if(rc)
    return rc;
  return st->ops->update(st, key, content_type, false, decide, ctx, err);
}

bp_code bpi_store_update_absent(struct bp_store *st, const char *key,
                                const char *content_type,
                                int (*decide)(void *ctx, const char *cur,
                                              size_t len, char **out),
                                void *ctx, struct bp_err *err)
{
  bp_code rc = check_key(key, err);
  if(rc)
    return rc;
  return st->ops->update(st, key, content_type, true, decide, ctx, err);
}

static void secret_free(char *s)
{
  if(s) {
    volatile char *p = s;
    while(*p)
      *p++ = '\0';
  }
  free(s);
}

void bpi_store_close(struct bp_store *st)
{
  if(!st)
    return;
  free(st->url);
  free(st->public_url);
  free(st->base);
  secret_free(st->bearer);
  free(st->region);
  free(st->aws_key);
  secret_free(st->aws_secret);
  secret_free(st->aws_token);
  free(st->ca_file);
  free(st);
}

bp_code bpi_store_open(struct bp_store **out, const struct bp_store_opts *o,
                       struct bp_err *err)
{
  *out = NULL;
  if(!o || !o->url || !o->url[0])
    return bpi_err_set(err, BPE_INVAL, 0, "no store URL");
  const struct store_ops *ops = NULL;
  for(size_t i = 0; i < BP_ARRAY_LEN(backends) && !ops; i++)
    if(starts_with(o->url, backends[i].scheme))
      ops = &backends[i];
  char shown[BP_HTTP_URL_SHOWN];
  bpi_http_url_shown(shown, o->url);
  if(!ops)
    return bpi_err_set(err, BPE_INVAL, 0, "store '%s': unknown scheme "
                       "(file://, s3://, http:// or https://)",
                       strchr(o->url, '@') ? "(URL with credentials)" :
                       shown);
  struct bp_store *st = calloc(1, sizeof(*st));
  if(!st)
    return bpi_err_set(err, BPE_NOMEM, 0, "out of memory");
  st->ops = ops;
  bp_code rc = ops->open(st, o, err);
  if(!rc && o->public_url) {
    rc = check_base_url("public URL", o->public_url, err);
    if(rc && starts_with(o->public_url, "file:///")) {
      bpi_err_clear(err);
      rc = BP_OK;
    }
    if(!rc) {
      st->public_url = dup_trimmed(o->public_url);
      if(!st->public_url)
        rc = bpi_err_set(err, BPE_NOMEM, 0, "out of memory");
    }
  }
  if(!rc && (!(st->url = strdup(o->url)) || !copy_http(st, o->http)))
    rc = bpi_err_set(err, BPE_NOMEM, 0, "out of memory");
  if(rc) {
    bpi_store_close(st);
    return rc;
  }
  *out = st;
  return BP_OK;
}

const char *bpi_store_url(const struct bp_store *st)
{
  return st->url;
}

void bpi_store_where(const struct bp_store *st, struct bp_buf *b)
{
  bool file = st->ops->open == file_open;
  const char *url = file ? st->url : st->base;
  const char *host = strstr(url, "://");
  size_t n = file || !host ? strlen(url)
                           : (size_t)(host + 3 - url) + strcspn(host + 3, "/");
  bpi_buf_add(b, url, n);
}

bp_code bpi_store_put(struct bp_store *st, const char *key, const void *data,
                      size_t len, const char *content_type,
                      const char *content_encoding, struct bp_err *err)
{
  bp_code rc = check_key(key, err);
  if(rc)
    return rc;
  return st->ops->put(st, key, data ? data : "", data ? len : 0, NULL,
                      content_type, content_encoding, err);
}

bp_code bpi_store_put_file(struct bp_store *st, const char *key,
                           const char *path, const char *content_type,
                           const char *content_encoding, struct bp_err *err)
{
  bp_code rc = check_key(key, err);
  if(rc)
    return rc;
  return st->ops->put(st, key, NULL, 0, path, content_type,
                      content_encoding, err);
}

bp_code bpi_store_get(struct bp_store *st, const char *key, char **data,
                      size_t *len, struct bp_err *err)
{
  *data = NULL;
  *len = 0;
  bp_code rc = check_key(key, err);
  if(rc)
    return rc;
  return st->ops->get(st, key, data, len, err);
}

bool bpi_store_needs_credentials(const struct bp_store *st)
{
  if(st->public_url || st->ops->open == file_open)
    return false;
  return st->ops->open == s3_open || st->bearer != NULL;
}

char *bpi_store_public_url(const struct bp_store *st, const char *key)
{
  if(st->public_url)
    return join_url(st->public_url, key);
  if(st->ops->open == file_open) {
    char *dir = dup_trimmed(st->url);
    char *url = dir ? join_url(dir, key) : NULL;
    free(dir);
    return url;
  }
  return join_url(st->base, key);
}

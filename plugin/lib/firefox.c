/* firefox: the Firefox Profiler's public store (see firefox.h). */
#include "bp_setup.h"
#include "firefox.h"
#include "buf.h"
#include "err.h"
#include "text.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FIREFOX_ACCEPT "Accept: application/vnd.firefox-profiler+json;" \
                       "version=1.0"

/* A file's bytes as they are (a gzipped profile stays gzipped). */
static bp_code read_raw(const char *path, struct bp_buf *out,
                        struct bp_err *err)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if(fd < 0)
    return bpi_err_set(err, BPE_IO, errno, "cannot open '%s'", path);
  char chunk[65536];
  ssize_t n;
  while((n = read(fd, chunk, sizeof(chunk))) != 0) {
    if(n < 0 && errno == EINTR)
      continue;
    if(n < 0) {
      int e = errno;
      close(fd);
      return bpi_err_set(err, BPE_IO, e, "cannot read '%s'", path);
    }
    bpi_buf_add(out, chunk, (size_t)n);
  }
  close(fd);
  return bpi_buf_failed(out) ? bpi_err_set(err, BPE_NOMEM, 0, "%s", path)
                             : BP_OK;
}

/* base64url (no padding) into bytes; NULL when malformed */
static char *b64url_decode(const char *s, size_t len)
{
  static const char alpha[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstu"
                              "vwxyz0123456789-_";
  char *out = malloc(len * 3 / 4 + 4);
  size_t n = 0;
  unsigned acc = 0, bits = 0;
  for(size_t i = 0; out && i < len; i++) {
    const char *p = s[i] ? strchr(alpha, s[i]) : NULL;
    if(!p) {
      free(out);
      return NULL;
    }
    acc = (acc << 6) | (unsigned)(p - alpha);
    bits += 6;
    if(bits >= 8) {
      bits -= 8;
      out[n++] = (char)((acc >> bits) & 0xff);
    }
  }
  if(out)
    out[n] = '\0';
  return out;
}

/* The profile's public link from the store's answer, a JWT whose payload
 * holds {"profileToken": T}. */
char *bpi_firefox_link(const char *text)
{
  const char *dot1 = strchr(text, '.');
  const char *dot2 = dot1 ? strchr(dot1 + 1, '.') : NULL;
  char *payload = dot2 ? b64url_decode(dot1 + 1, (size_t)(dot2 - dot1 - 1))
                       : NULL;
  cJSON *j = payload ? cJSON_Parse(payload) : NULL;
  const char *tok = bpi_json_str(j, "profileToken");
  char *link = NULL;
  if(tok && *tok && strspn(tok, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop"
                           "qrstuvwxyz0123456789-_") == strlen(tok)) {
    struct bp_buf b;
    bpi_buf_init(&b);
    bpi_buf_printf(&b, BP_FIREFOX_PUBLIC "%s/", tok);
    link = bpi_buf_failed(&b) ? NULL : b.data;
  }
  cJSON_Delete(j);
  free(payload);
  return link;
}

bp_code bpi_firefox_upload(const struct bp_http_opts *http, const char *api,
                           const char *path, char **link, bool *lost,
                           struct bp_err *err)
{
  *lost = false;
  struct bp_buf body, url;
  struct bp_http_resp resp;
  bpi_buf_init(&body);
  bpi_buf_init(&url);
  bpi_http_resp_init(&resp);
  size_t len = api ? strlen(api) : 0;
  while(len && api[len - 1] == '/')
    len--;
  bpi_buf_add(&url, api ? api : "", len);
  bpi_buf_adds(&url, "/compressed-store");
  bp_code rc = !bpi_buf_failed(&url)
                 ? read_raw(path, &body, err)
                 : bpi_err_set(err, BPE_NOMEM, 0, "upload");
  if(!rc) {
    static const char *const headers[] = {FIREFOX_ACCEPT, NULL};
    struct bp_http_req req = {
      .method = "POST", .url = url.data, .headers = headers,
      .content_type = "application/octet-stream",
      .body = body.data, .body_len = body.len, .not_idempotent = true,
    };
    rc = bpi_http_send(http, &req, &resp, err);
    *lost = rc && resp.maybe_received;
  }
  if(!rc && !(*link = bpi_firefox_link(resp.body.data ? resp.body.data
                                                      : "")))
    rc = bpi_err_set(err, BPE_FORMAT, 0, "POST %s: the answer "
                     "holds no profile token", url.data);
  bpi_http_resp_cleanup(&resp);
  bpi_buf_cleanup(&url);
  bpi_buf_cleanup(&body);
  return rc;
}


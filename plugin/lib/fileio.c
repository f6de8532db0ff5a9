#include "bp_setup.h"
#include "fileio.h"
#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

bp_code bpi_file_mkdirs(const char *dir, struct bp_err *err)
{
  char path[PATH_MAX];
  size_t len = strlen(dir);
  if(len == 0 || len >= sizeof(path))
    return bpi_err_set(err, BPE_INVAL, 0, "bad directory name '%s'", dir);
  memcpy(path, dir, len + 1);
  for(char *p = path + 1; *p; p++) {
    if(*p != '/')
      continue;
    *p = '\0';
    if(mkdir(path, 0755) && errno != EEXIST)
      return bpi_err_set(err, BPE_IO, errno, "cannot create directory '%s'",
                         path);
    *p = '/';
  }
  if(mkdir(path, 0755) && errno != EEXIST)
    return bpi_err_set(err, BPE_IO, errno, "cannot create directory '%s'",
                       path);
  struct stat st;
  if(stat(path, &st) || !S_ISDIR(st.st_mode))
    return bpi_err_set(err, BPE_IO, ENOTDIR, "'%s' is not a directory", path);
  return BP_OK;
}

static bool write_all(int fd, const unsigned char *p, size_t len)
{
  while(len) {
    ssize_t n = write(fd, p, len);
    if(n < 0) {
      if(errno == EINTR)
        continue;
      return false;
    }
    p += n;
    len -= (size_t)n;
  }
  return true;
}

/* gzip with a proper header (windowBits 15 + 16) so browsers, zcat and the
 * Firefox Profiler all recognise it. */
static bp_code gzip_data(const void *data, size_t len, unsigned char **out,
                         size_t *out_len)
{
  z_stream zs;
  memset(&zs, 0, sizeof(zs));
  if(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return BPE_NOMEM;
  size_t cap = deflateBound(&zs, (uLong)len) + 32;
  unsigned char *buf = malloc(cap);
  if(!buf) {
    deflateEnd(&zs);
    return BPE_NOMEM;
  }
  zs.next_in = (Bytef *)(uintptr_t)data;
  zs.avail_in = (uInt)len;
  zs.next_out = buf;
  zs.avail_out = (uInt)cap;
  int zrc = deflate(&zs, Z_FINISH);
  *out_len = zs.total_out;
  deflateEnd(&zs);
  if(zrc != Z_STREAM_END) {
    free(buf);
    return BPE_NOMEM;
  }
  *out = buf;
  return BP_OK;
}

bp_code bpi_file_write(const char *path, const void *data, size_t len,
                       bool gzip, struct bp_err *err)
{
  unsigned char *zbuf = NULL;
  const unsigned char *bytes = data;
  bp_code rc = BP_OK;
  char tmp[PATH_MAX];
  int fd = -1;

  if(gzip) {
    size_t zlen;
    rc = gzip_data(data, len, &zbuf, &zlen);
    if(rc)
      return bpi_err_set(err, rc, 0, "cannot compress '%s'", path);
    bytes = zbuf;
    len = zlen;
  }
  if((size_t)snprintf(tmp, sizeof(tmp), "%s.tmpXXXXXX", path) >= sizeof(tmp)) {
    rc = bpi_err_set(err, BPE_INVAL, 0, "path too long: '%s'", path);
    goto out;
  }
  fd = mkstemp(tmp);
  if(fd < 0) {
    rc = bpi_err_set(err, BPE_IO, errno, "cannot write '%s'", path);
    goto out;
  }
  if(!write_all(fd, bytes, len) || fchmod(fd, 0644)) {
    rc = bpi_err_set(err, BPE_IO, errno, "cannot write '%s'", path);
    goto out;
  }
  if(close(fd)) {
    fd = -1;
    rc = bpi_err_set(err, BPE_IO, errno, "cannot write '%s'", path);
    goto out;
  }
  fd = -1;
  if(rename(tmp, path)) {
    rc = bpi_err_set(err, BPE_IO, errno, "cannot rename into '%s'", path);
    goto out;
  }
  tmp[0] = '\0';
out:
  if(fd >= 0)
    close(fd);
  if(rc && tmp[0])
    unlink(tmp);
  free(zbuf);
  return rc;
}

bp_code bpi_file_read(const char *path, char **out, size_t *out_len,
                      struct bp_err *err)
{
  gzFile gz = gzopen(path, "rb");  /* reads plain files transparently */
  if(!gz)
    return bpi_err_set(err, BPE_IO, errno, "cannot open '%s'", path);
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  bp_code rc = BP_OK;
  for(;;) {
    if(!buf) {
      rc = bpi_err_set(err, BPE_NOMEM, 0, "reading '%s'", path);
      break;
    }
    if(cap - len < 4096) {
      char *nb = realloc(buf, cap * 2);
      if(!nb) {
        free(buf);
        buf = NULL;
        continue;
      }
      buf = nb;
      cap *= 2;
    }
    int n = gzread(gz, buf + len, (unsigned)(cap - len - 1));
    if(n < 0) {
      rc = bpi_err_set(err, BPE_IO, 0, "cannot read '%s'", path);
      break;
    }
    if(n == 0)
      break;
    len += (size_t)n;
  }
  gzclose(gz);
  if(rc) {
    free(buf);
    return rc;
  }
  buf[len] = '\0';
  *out = buf;
  if(out_len)
    *out_len = len;
  return BP_OK;
}

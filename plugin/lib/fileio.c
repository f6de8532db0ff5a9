#include "bp_setup.h"
#include "fileio.h"
#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* mkdir of path, then of its parents only when it says they are
 * missing: artifacts mostly go where an earlier one made the directory,
 * and one mkdir that finds it there is all that costs (creating every
 * level from the root each time was a sixth of publishing a large
 * suite's files). */
static int mkdir_with_parents(char *path)
{
  if(!mkdir(path, 0755) || errno == EEXIST)
    return 0;
  if(errno != ENOENT)
    return errno;
  char *slash = strrchr(path, '/');
  while(slash && slash > path && slash[-1] == '/')
    slash--;
  if(!slash || slash == path)
    return ENOENT;
  *slash = '\0';
  int e = mkdir_with_parents(path);
  *slash = '/';
  if(e)
    return e;
  return mkdir(path, 0755) && errno != EEXIST ? errno : 0;
}

bp_code bpi_file_mkdirs(const char *dir, struct bp_err *err)
{
  char path[PATH_MAX];
  size_t len = strlen(dir);
  if(len == 0 || len >= sizeof(path))
    return bpi_err_set(err, BPE_INVAL, 0, "bad directory name '%s'", dir);
  memcpy(path, dir, len + 1);
  while(len > 1 && path[len - 1] == '/')
    path[--len] = '\0';
  int e = mkdir_with_parents(path);
  if(e)
    return bpi_err_set(err, BPE_IO, e, "cannot create directory '%s'",
                       path);
  struct stat st;
  if(stat(path, &st) || !S_ISDIR(st.st_mode))
    return bpi_err_set(err, BPE_IO, ENOTDIR, "'%s' is not a directory", path);
  return BP_OK;
}

/* The nearest existing directory at or above path (cut in place): the
 * one whose mode decides whether path can be made.  A relative name none
 * of which exists is made in ".". */
static int nearest_existing(char *path, size_t size, struct stat *st)
{
  while(stat(path, st)) {
    /* ENOTDIR: a file on the way, which the level above finds */
    if(errno != ENOENT && errno != ENOTDIR)
      return errno;
    char *slash = strrchr(path, '/');
    if(!slash)
      snprintf(path, size, ".");
    else
      *(slash == path ? slash + 1 : slash) = '\0';
  }
  return 0;
}

bp_code bpi_file_dir_usable(const char *dir, struct bp_err *err)
{
  char path[PATH_MAX];
  struct stat st;
  size_t len = strlen(dir);
  if(len == 0 || len >= sizeof(path))
    return bpi_err_set(err, BPE_INVAL, 0, "bad directory name '%s'", dir);
  memcpy(path, dir, len + 1);
  int e = nearest_existing(path, sizeof(path), &st);
  if(e)
    return bpi_err_set(err, BPE_IO, e, "cannot look at '%s'", path);
  if(S_ISDIR(st.st_mode) && !access(path, W_OK | X_OK))
    return BP_OK;
  e = S_ISDIR(st.st_mode) ? errno : ENOTDIR;
  if(strcmp(path, dir))
    return bpi_err_set(err, BPE_IO, e, "'%s' does not exist and cannot be "
                       "created in '%s'", dir, path);
  if(e == ENOTDIR)
    return bpi_err_set(err, BPE_IO, 0, "'%s' is not a directory", dir);
  return bpi_err_set(err, BPE_IO, e, "'%s' is not writable", dir);
}

bp_code bpi_file_mkdirs_under(const char *root, const char *rel,
                              struct bp_err *err)
{
  char part[PATH_MAX];
  size_t len = strlen(rel);
  if(!len || len >= sizeof(part) || rel[0] == '/')
    return bpi_err_set(err, BPE_INVAL, 0, "bad directory name '%s'", rel);
  int dir = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if(dir < 0)
    return bpi_err_set(err, BPE_IO, errno, "cannot open directory '%s'",
                       root);
  bp_code rc = BP_OK;
  const char *p = rel;
  while(*p && !rc) {
    size_t n = strcspn(p, "/");
    memcpy(part, p, n);
    part[n] = '\0';
    p += n + (p[n] == '/');
    if(!n || !strcmp(part, ".") || !strcmp(part, ".."))
      rc = bpi_err_set(err, BPE_INVAL, 0, "bad directory name '%s'", rel);
    if(rc)
      break;
    if(mkdirat(dir, part, 0755) && errno != EEXIST) {
      rc = bpi_err_set(err, BPE_IO, errno, "cannot create directory "
                       "'%s/%.*s'", root, (int)(p - rel), rel);
      break;
    }
    int next = openat(dir, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
                      O_CLOEXEC);
    if(next < 0) {
      int e = errno;
      rc = bpi_err_set(err, BPE_IO, 0, "'%s/%.*s' is %s: nothing is written "
                       "through it", root, (int)(p - rel - (p[-1] == '/')),
                       rel, e == ELOOP || e == ENOTDIR ?
                       "a symbolic link or not a directory" : strerror(e));
      break;
    }
    close(dir);
    dir = next;
  }
  close(dir);
  return rc;
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

/* An artifact being written: a file without a name in the target's
 * directory (linked into place by bpi_file_out_commit), or a temporary
 * file next to the target (renamed into place).  gzip output goes through
 * a fixed buffer, so writing a large artifact takes no memory in
 * proportion. */
struct bp_file_out {
  int fd;
  bool gzip;
  bool unnamed;    /* O_TMPFILE: no name until commit links one */
  bool failed;     /* a write or deflate failed: commit reports it */
  int sys_errno;
  bool zs_ready;   /* deflateInit2 done (at the first write: sized by it) */
  bool hashing;    /* BP_FILE_SHA256 */
  struct bp_sha256 sha;
  uint64_t bytes;  /* written to fd so far */
  z_stream zs;
  bool has_tmp;    /* the file is (also) under the name tmp */
  /* not cleared (bpi_file_out_open) from here on */
  char path[PATH_MAX];
  char tmp[PATH_MAX];
  unsigned char zout[65536];
};

/* Level 1: the artifacts are mostly numbers and repeated names, where
 * level 6 is about 3x the CPU time for 10-15% smaller files. */
#define GZIP_LEVEL 1

/* The mode of every file written here, whatever the umask (as the
 * artifacts always had: readable by the web server of a file store). */
#define FILE_MODE 0644

/* Whether /proc/self/fd names this process's descriptors: an unnamed
 * file can be linked into place only through it (linkat's AT_EMPTY_PATH
 * needs CAP_DAC_READ_SEARCH).  Asked once per process. */
static bool proc_fds_linkable(void)
{
  static atomic_int known;  /* 0: not asked yet, 1: yes, -1: no */
  int k = atomic_load(&known);
  if(!k) {
    k = access("/proc/self/fd", X_OK) ? -1 : 1;
    atomic_store(&known, k);
  }
  return k > 0;
}

/* A file without a name in the directory of path, or -1 when the kernel,
 * the file system or a missing /proc does not allow it (the caller then
 * makes a named one, which says what is wrong if anything is).  A name
 * made by mkstemp costs more than the write of a small artifact: its
 * random letters, the O_EXCL lookups, then the rename. */
static int open_unnamed(const char *path)
{
#ifdef O_TMPFILE
  char dir[PATH_MAX];
  const char *slash = strrchr(path, '/');
  if(!slash)
    return proc_fds_linkable() ? open(".", O_TMPFILE | O_WRONLY | O_CLOEXEC,
                                      FILE_MODE) : -1;
  size_t n = slash == path ? 1 : (size_t)(slash - path);
  if(n >= sizeof(dir) || !proc_fds_linkable())
    return -1;
  memcpy(dir, path, n);
  dir[n] = '\0';
  return open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, FILE_MODE);
#else
  (void)path;
  return -1;
#endif
}

bp_code bpi_file_out_open(struct bp_file_out **out, const char *path,
                          unsigned flags, struct bp_err *err)
{
  /* the fields cleared, not the names and the compressor's 64 KiB output
   * buffer: they are written as far as they are used, and clearing them
   * all touched 18 fresh pages for a process's first artifact (each a
   * page fault, 10 us on a virtual machine) */
  struct bp_file_out *f = malloc(sizeof(*f));
  if(!f)
    return bpi_err_set(err, BPE_NOMEM, 0, "writing '%s'", path);
  memset(f, 0, offsetof(struct bp_file_out, path));
  f->fd = -1;
  f->gzip = flags & BP_FILE_GZIP;
  f->hashing = flags & BP_FILE_SHA256;
  if(f->hashing)
    bpi_sha256_init(&f->sha);
  if((size_t)snprintf(f->path, sizeof(f->path), "%s", path) >=
       sizeof(f->path) ||
     (size_t)snprintf(f->tmp, sizeof(f->tmp), "%s.tmpXXXXXX", path) >=
       sizeof(f->tmp)) {
    free(f);
    return bpi_err_set(err, BPE_INVAL, 0, "path too long: '%s'", path);
  }
  f->fd = open_unnamed(path);
  f->unnamed = f->fd >= 0;
  if(!f->unnamed) {
    f->fd = mkstemp(f->tmp);
    f->has_tmp = f->fd >= 0;
  }
  if(f->fd < 0) {
    int e = errno;
    free(f);
    return bpi_err_set(err, BPE_IO, e, "cannot write '%s'", path);
  }
  *out = f;
  return BP_OK;
}

static void out_fail(struct bp_file_out *f, int e)
{
  if(!f->failed) {
    f->failed = true;
    f->sys_errno = e;
  }
}

/* Bytes to the file, hashed on the way when asked (they are what lands
 * on disk: after gzip). */
static void out_put(struct bp_file_out *f, const unsigned char *p,
                    size_t len)
{
  if(f->hashing)
    bpi_sha256_update(&f->sha, p, len);
  if(!write_all(f->fd, p, len))
    out_fail(f, errno);
  f->bytes += len;
}

/* deflate's state for a stream whose first write is first_len bytes.
 * gzip with a proper header (windowBits + 16) so browsers, zcat and the
 * Firefox Profiler all recognise it.  A window and hash table no larger
 * than that first write when it is small: most artifacts of a suite's
 * benchmarks are a few KB, written in one piece, and the full-size state
 * (256 KB, its hash table cleared on every start) cost more than
 * compressing them. */
static bool deflate_start(struct bp_file_out *f, size_t first_len)
{
  int bits = 9;  /* deflate's smallest window */
  while(bits < 15 && ((size_t)1 << bits) < first_len)
    bits++;
  int mem_level = bits - 7 < 1 ? 1 : bits - 7 > 8 ? 8 : bits - 7;
  f->zs_ready = deflateInit2(&f->zs, GZIP_LEVEL, Z_DEFLATED, bits + 16,
                             mem_level, Z_DEFAULT_STRATEGY) == Z_OK;
  return f->zs_ready;
}

/* Run deflate with flush until it wants more input (or, with Z_FINISH,
 * until the stream ends), writing out each full buffer. */
static void deflate_out(struct bp_file_out *f, int flush)
{
  for(;;) {
    f->zs.next_out = f->zout;
    f->zs.avail_out = sizeof(f->zout);
    int zrc = deflate(&f->zs, flush);
    if(zrc == Z_STREAM_ERROR) {
      out_fail(f, 0);
      return;
    }
    size_t have = sizeof(f->zout) - f->zs.avail_out;
    if(have)
      out_put(f, f->zout, have);
    if(f->failed)
      return;
    if(flush == Z_FINISH ? zrc == Z_STREAM_END
                         : (f->zs.avail_in == 0 && f->zs.avail_out != 0))
      return;
  }
}

bp_code bpi_file_out_write(struct bp_file_out *f, const void *data,
                           size_t len)
{
  if(f->failed)
    return BPE_IO;
  if(!f->gzip) {
    out_put(f, data, len);
    return f->failed ? BPE_IO : BP_OK;
  }
  if(!f->zs_ready && !deflate_start(f, len)) {
    out_fail(f, ENOMEM);
    return BPE_IO;
  }
  const unsigned char *p = data;
  while(len && !f->failed) {
    /* avail_in is a uInt: feed very large writes in pieces */
    uInt chunk = len > (1u << 30) ? (1u << 30) : (uInt)len;
    f->zs.next_in = (Bytef *)(uintptr_t)p;
    f->zs.avail_in = chunk;
    deflate_out(f, Z_NO_FLUSH);
    p += chunk;
    len -= chunk;
  }
  return f->failed ? BPE_IO : BP_OK;
}

void bpi_file_out_abort(struct bp_file_out *f)
{
  if(!f)
    return;
  if(f->zs_ready)
    deflateEnd(&f->zs);
  if(f->fd >= 0)
    close(f->fd);  /* an unnamed file goes with its last descriptor */
  if(f->has_tmp)
    unlink(f->tmp);
  free(f);
}

/* The unnamed file behind fd linked as name: 0, or the errno that says
 * why not. */
static int link_unnamed(int fd, const char *name)
{
  char proc[64];
  snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
  return linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW) ? errno
                                                                   : 0;
}

/* A temporary name next to f->path that this process has not used: its
 * pid and a counter (a name another process left behind is met as
 * EEXIST, and the next one is tried). */
static bool next_tmp_name(struct bp_file_out *f)
{
  static atomic_uint seq;
  return (size_t)snprintf(f->tmp, sizeof(f->tmp), "%s.tmp%ld-%u", f->path,
                          (long)getpid(), atomic_fetch_add(&seq, 1)) <
         sizeof(f->tmp);
}

bool bpi_file_is_temp_of(const char *name, const char *target)
{
  static const char digits[] = "0123456789";
  size_t n = strlen(target);
  if(strncmp(name, target, n) || strncmp(name + n, ".tmp", 4))
    return false;
  const char *s = name + n + 4;
  size_t len = strlen(s);
  /* bpi_file_out_open's mkstemp name */
  if(len == 6 && strspn(s, "abcdefghijklmnopqrstuvwxyz"
                           "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") == 6)
    return true;
  /* next_tmp_name's */
  size_t pid = strspn(s, digits);
  return pid && s[pid] == '-' && s[pid + 1] &&
         strspn(s + pid + 1, digits) == len - pid - 1;
}

/* The unnamed file given a name: path itself when nothing is there (the
 * file appears whole, in one directory operation), else a temporary name
 * (f->has_tmp) that commit renames over the file there, so that replacing
 * it stays atomic (linkat never replaces).  0 or an errno. */
static int name_unnamed(struct bp_file_out *f)
{
  int e = link_unnamed(f->fd, f->path);
  for(int tries = 0; e == EEXIST && tries < 16; tries++) {
    if(!next_tmp_name(f))
      return ENAMETOOLONG;
    e = link_unnamed(f->fd, f->tmp);
    f->has_tmp = !e;
  }
  return e;
}

static bp_code commit_failed(struct bp_file_out *f, int e, const char *what,
                             struct bp_err *err)
{
  bp_code rc = bpi_err_set(err, BPE_IO, e, "%s '%s'", what, f->path);
  bpi_file_out_abort(f);
  return rc;
}

bp_code bpi_file_out_commit(struct bp_file_out *f,
                            struct bp_file_digest *digest,
                            struct bp_err *err)
{
  if(f->gzip && !f->failed && !f->zs_ready && !deflate_start(f, 0))
    out_fail(f, ENOMEM);  /* nothing was written: an empty stream */
  if(f->gzip && !f->failed) {
    f->zs.next_in = NULL;
    f->zs.avail_in = 0;
    deflate_out(f, Z_FINISH);
  }
  if(!f->failed && fchmod(f->fd, FILE_MODE))
    out_fail(f, errno);
  if(f->failed)
    return commit_failed(f, f->sys_errno, "cannot write", err);
  /* linked while the descriptor is open: /proc names it only then */
  int e = f->unnamed ? name_unnamed(f) : 0;
  if(e)
    return commit_failed(f, e, "cannot write", err);
  bool in_place = !f->has_tmp;
  int fd = f->fd;
  f->fd = -1;
  if(close(fd)) {
    e = errno;
    if(in_place)
      unlink(f->path);  /* it was nothing before: nothing half-written */
    return commit_failed(f, e, "cannot write", err);
  }
  if(!in_place && rename(f->tmp, f->path))
    return commit_failed(f, errno, "cannot rename into", err);
  if(digest) {
    digest->bytes = f->bytes;
    memset(digest->sha256, 0, sizeof(digest->sha256));
    if(f->hashing)
      bpi_sha256_final(&f->sha, digest->sha256);
  }
  if(f->zs_ready)
    deflateEnd(&f->zs);
  free(f);
  return BP_OK;
}

bp_code bpi_file_write(const char *path, const void *data, size_t len,
                       bool gzip, struct bp_err *err)
{
  struct bp_file_out *f;
  bp_code rc = bpi_file_out_open(&f, path, gzip ? BP_FILE_GZIP : 0, err);
  if(rc)
    return rc;
  bpi_file_out_write(f, data, len);
  return bpi_file_out_commit(f, NULL, err);
}

/* Open path for reading if it is a regular file.  O_NONBLOCK so that a
 * FIFO with no writer cannot block the open; the check is made on the
 * descriptor itself, so a file swapped in after it cannot slip by.  The
 * flag is taken off again (it means nothing for a regular file). */
static int open_regular(const char *path, struct bp_err *err)
{
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if(fd < 0) {
    bpi_err_set(err, BPE_IO, errno, "cannot open '%s'", path);
    return -1;
  }
  struct stat st;
  if(fstat(fd, &st)) {
    bpi_err_set(err, BPE_IO, errno, "cannot open '%s'", path);
    close(fd);
    return -1;
  }
  if(!S_ISREG(st.st_mode)) {
    bpi_err_set(err, BPE_IO, 0, "'%s' is not a regular file (%s)", path,
                S_ISDIR(st.st_mode) ? "a directory" :
                S_ISFIFO(st.st_mode) ? "a FIFO" :
                S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" :
                S_ISSOCK(st.st_mode) ? "a socket" : "not a file");
    close(fd);
    return -1;
  }
  int flags = fcntl(fd, F_GETFL);
  if(flags >= 0)
    fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

/* Bytes from a file being read whole: through zlib when it is gzip,
 * else straight from the descriptor (zlib reads plain files too, but
 * through buffers of its own: a tenth of comparing a large suite went
 * to gzread copying small plain summaries). */
struct whole_read {
  int fd;
  gzFile gz;
};

static int whole_read_some(struct whole_read *r, char *buf, size_t want)
{
  if(r->gz)
    return gzread(r->gz, buf, (unsigned)want);
  for(;;) {
    ssize_t n = read(r->fd, buf, want);
    if(n >= 0 || errno != EINTR)
      return (int)n;
  }
}

static bool starts_gzip(int fd)
{
  unsigned char magic[2];
  return pread(fd, magic, sizeof(magic), 0) == 2 && magic[0] == 0x1f &&
         magic[1] == 0x8b;
}

bp_code bpi_file_read_max(const char *path, size_t max, char **out,
                          size_t *out_len, struct bp_err *err)
{
  struct whole_read r = { open_regular(path, err), NULL };
  if(r.fd < 0)
    return err && err->code ? err->code : BPE_IO;
  if(starts_gzip(r.fd) && !(r.gz = gzdopen(r.fd, "rb"))) {
    close(r.fd);
    return bpi_err_set(err, BPE_NOMEM, 0, "reading '%s'", path);
  }
  /* room for the whole file at once (plus the read that sees its end):
   * growing by doubling moved a large manifest's tens of megabytes
   * several times, into fresh pages each time */
  struct stat st;
  size_t cap = 4096, len = 0;
  if(!fstat(r.fd, &st) && st.st_size > 0 && (uint64_t)st.st_size < max)
    cap += (size_t)st.st_size + 4096;
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
    /* one byte past max is enough to tell that the file is too large */
    size_t want = cap - len - 1;
    if(want > max + 1 - len)
      want = max + 1 - len;
    if(want > INT_MAX)
      want = INT_MAX;
    int n = whole_read_some(&r, buf + len, want);
    if(n < 0) {
      rc = bpi_err_set(err, BPE_IO, r.gz ? 0 : errno, "cannot read '%s'",
                       path);
      break;
    }
    if(n == 0)
      break;
    len += (size_t)n;
    if(len > max) {
      rc = bpi_err_set(err, BPE_FORMAT, 0, "'%s' is larger than %zu bytes%s",
                       path, max, r.gz ? " once decompressed" : "");
      break;
    }
  }
  if(r.gz)
    gzclose(r.gz);
  else
    close(r.fd);
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

bp_code bpi_file_read(const char *path, char **out, size_t *out_len,
                      struct bp_err *err)
{
  return bpi_file_read_max(path, BP_FILE_READ_MAX, out, out_len, err);
}

bp_code bpi_file_append(const char *path, const void *data, size_t len,
                        struct bp_err *err)
{
  char *old = NULL;
  size_t old_len = 0;
  if(access(path, F_OK) == 0) {
    bp_code rc = bpi_file_read(path, &old, &old_len, err);
    if(rc)
      return rc;
  }
  bool newline = old_len && old[old_len - 1] != '\n';
  char *all = old_len + newline + len >= old_len ?
              malloc(old_len + newline + len + 1) : NULL;
  if(!all) {
    free(old);
    return bpi_err_set(err, BPE_NOMEM, 0, "%s", path);
  }
  if(old_len)
    memcpy(all, old, old_len);
  if(newline)
    all[old_len] = '\n';
  if(len)
    memcpy(all + old_len + newline, data, len);
  bp_code rc = bpi_file_write(path, all, old_len + newline + len, false, err);
  free(all);
  free(old);
  return rc;
}

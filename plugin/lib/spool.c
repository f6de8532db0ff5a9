/* spool: the durable outbox (see spool.h).  Every step that makes a
 * publication or a part marker visible is a rename after its data and
 * directories are on disk (fsync; for a publication's thousands of files,
 * one syncfs of the file system), so a kill or a power cut leaves either
 * the old state or the new one. */
#include "bp_setup.h"
#include "spool.h"
#include "buf.h"
#include "err.h"
#include "fileio.h"
#include "parallel.h"
#include "text.h"

#include <dirent.h>
#include <pthread.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TMP_PREFIX ".tmp-"
#define TRASH_PREFIX ".trash-"
#define DONE_DIR "done"
/* the marks without a value, one "part\n" line each, appended */
#define DONE_LOG "done.log"
#define LOCK_FILE "lock"
/* why the latest delivery failed, for flush --list */
#define LAST_FAILURE "last-failure"
#define LAST_FAILURE_MAX 1024
/* in a publication whose files/ is flat (every publication this version
 * makes; an older one's files/ mirrors the run directory) */
#define FLAT_MARK "flat"
/* an interrupted add older than this is abandoned */
#define STALE_TMP_SECS 3600

static bp_code fsync_path(const char *path, bool dir, struct bp_err *err)
{
  int fd = open(path, (dir ? O_DIRECTORY : 0) | O_RDONLY | O_CLOEXEC);
  if(fd < 0)
    return bpi_err_set(err, BPE_IO, errno, "cannot open '%s'", path);
  int rc = fsync(fd);
  int e = errno;
  close(fd);
  if(rc)
    return bpi_err_set(err, BPE_IO, e, "cannot sync '%s'", path);
  return BP_OK;
}

/* Visit the tree at path, children before their directory (a file is
 * visited alone); stops at the first error. */
static bp_code walk(const char *path,
                    bp_code (*fn)(const char *path, bool dir,
                                  struct bp_err *err),
                    struct bp_err *err)
{
  struct stat st;
  if(lstat(path, &st))
    return errno == ENOENT ? BP_OK
                           : bpi_err_set(err, BPE_IO, errno,
                                         "cannot stat '%s'", path);
  if(!S_ISDIR(st.st_mode))
    return fn(path, false, err);
  DIR *d = opendir(path);
  if(!d)
    return bpi_err_set(err, BPE_IO, errno, "cannot read '%s'", path);
  bp_code rc = BP_OK;
  struct dirent *de;
  while(!rc && (de = readdir(d))) {
    if(!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
      continue;
    char *child = bpi_text_path_join(path, de->d_name);
    rc = child ? walk(child, fn, err)
               : bpi_err_set(err, BPE_NOMEM, 0, "spool path");
    free(child);
  }
  closedir(d);
  return rc ? rc : fn(path, true, err);
}

/* Everything written to path's file system on disk: one syncfs instead of
 * an fsync per file of a publication (a suite of thousands of benchmarks
 * has tens of thousands of them). */
static bp_code sync_fs(const char *path, struct bp_err *err)
{
  int fd = open(path, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
  if(fd < 0)
    return bpi_err_set(err, BPE_IO, errno, "cannot open '%s'", path);
  int rc = syncfs(fd);
  int e = errno;
  close(fd);
  return rc ? bpi_err_set(err, BPE_IO, e, "cannot sync '%s'", path) : BP_OK;
}

static bp_code remove_one(const char *path, bool dir, struct bp_err *err)
{
  if((dir ? rmdir(path) : unlink(path)) && errno != ENOENT)
    return bpi_err_set(err, BPE_IO, errno, "cannot remove '%s'", path);
  return BP_OK;
}

static bp_code copy_file(const char *src, const char *dst, struct bp_err *err)
{
  int in = open(src, O_RDONLY | O_CLOEXEC);
  if(in < 0)
    return bpi_err_set(err, BPE_IO, errno, "cannot open '%s'", src);
  int out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  bp_code rc = BP_OK;
  if(out < 0) {
    rc = bpi_err_set(err, BPE_IO, errno, "cannot create '%s'", dst);
    goto out;
  }
  char buf[65536];
  for(;;) {
    ssize_t n = read(in, buf, sizeof(buf));
    if(n < 0 && errno == EINTR)
      continue;
    if(n < 0) {
      rc = bpi_err_set(err, BPE_IO, errno, "cannot read '%s'", src);
      goto out;
    }
    if(n == 0)
      break;
    for(ssize_t off = 0; off < n;) {
      ssize_t w = write(out, buf + off, (size_t)(n - off));
      if(w < 0 && errno == EINTR)
        continue;
      if(w < 0) {
        rc = bpi_err_set(err, BPE_IO, errno, "cannot write '%s'", dst);
        goto out;
      }
      off += w;
    }
  }
out:
  if(out >= 0 && close(out) && !rc)
    rc = bpi_err_set(err, BPE_IO, errno, "cannot write '%s'", dst);
  close(in);
  return rc;
}

/* A relative path that stays inside its directory. */
static bool safe_rel(const char *rel)
{
  if(!*rel || rel[0] == '/')
    return false;
  for(const char *p = rel; *p;) {
    size_t len = strcspn(p, "/");
    if(len == 0 || (len == 1 && p[0] == '.') ||
       (len == 2 && p[0] == '.' && p[1] == '.'))
      return false;
    p += len;
    if(*p)
      p++;
  }
  return true;
}

/* The name of the run's file rel in a flat files/ ('%' -> "%25", '/' ->
 * "%2F": one name per path), into out; false when that name would be too
 * long for a directory entry (the file then keeps rel's directories).
 * Appended to out (NUL-terminated).  Flat, a publication has no
 * directory per benchmark: removing one
 * directory gave a block back to the file system, which a disk mounted
 * with discard makes a synchronous discard (a second per thousand
 * benchmarks here). */
static bool flat_name(const char *rel, struct bp_buf *out)
{
  size_t start = out->len;
  for(const char *c = rel; *c; c++) {
    if(*c == '%')
      bpi_buf_adds(out, "%25");
    else if(*c == '/')
      bpi_buf_adds(out, "%2F");
    else
      bpi_buf_addc(out, *c);
  }
  bpi_buf_addc(out, '\0');
  return !bpi_buf_failed(out) && out->len - 1 - start <= NAME_MAX;
}

/* dst_root/<rel's flat name> (else dst_root/rel) from src_root/rel: a
 * hard link (the run's files are replaced by rename, never rewritten in
 * place, so a link is a stable copy), else a copy. */
static bp_code add_file(const char *src_root, const char *dst_root,
                        const char *rel, struct bp_err *err)
{
  if(!safe_rel(rel))
    return bpi_err_set(err, BPE_INVAL, 0, "spool: '%s' is not a relative "
                       "path inside the run directory", rel);
  struct bp_buf flat;
  bpi_buf_init(&flat);
  char *src = bpi_text_path_join(src_root, rel);
  char *dst = bpi_text_path_join(dst_root, flat_name(rel, &flat) ? flat.data
                                                                 : rel);
  bpi_buf_cleanup(&flat);
  bp_code rc = src && dst ? BP_OK
                          : bpi_err_set(err, BPE_NOMEM, 0, "spool path");
  /* the folder is made when the link says it is missing: a run's
   * thousands of files go into a few folders */
  bool linked = !rc && !link(src, dst);
  char *slash = dst ? strrchr(dst, '/') : NULL;
  if(!rc && !linked && errno == ENOENT && slash) {
    *slash = '\0';
    rc = bpi_file_mkdirs(dst, err);
    *slash = '/';
    linked = !rc && !link(src, dst);
  }
  if(!rc && !linked) {
    if(errno == ENOENT)
      rc = bpi_err_set(err, BPE_IO, errno, "cannot read '%s'", src);
    else
      rc = copy_file(src, dst, err);
  }
  free(src);
  free(dst);
  return rc;
}

static bp_code write_new(const char *path, const char *data, size_t len,
                         bool sync, struct bp_err *err)
{
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if(fd < 0)
    return bpi_err_set(err, BPE_IO, errno, "cannot create '%s'", path);
  bp_code rc = BP_OK;
  while(!rc && len) {
    ssize_t n = write(fd, data, len);
    if(n < 0 && errno == EINTR)
      continue;
    if(n < 0)
      rc = bpi_err_set(err, BPE_IO, errno, "cannot write '%s'", path);
    else {
      data += n;
      len -= (size_t)n;
    }
  }
  if(!rc && sync && fsync(fd))
    rc = bpi_err_set(err, BPE_IO, errno, "cannot sync '%s'", path);
  if(close(fd) && !rc)
    rc = bpi_err_set(err, BPE_IO, errno, "cannot write '%s'", path);
  return rc;
}

/* "20261129T201348.123456789Z-1a2b3c4d": creation time first, so that
 * the names sort oldest first; the random tail keeps them apart. */
static bp_code new_id(char *out, size_t len, struct bp_err *err)
{
  struct timespec ts;
  struct tm tm;
  unsigned char rnd[4];
  char stamp[32], hex[9];
  clock_gettime(CLOCK_REALTIME, &ts);
  gmtime_r(&ts.tv_sec, &tm);
  strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", &tm);
  if(getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
    return bpi_err_set(err, BPE_SYS, errno, "spool: no random bytes");
  bpi_hex_encode(rnd, sizeof(rnd), hex);
  snprintf(out, len, "%s.%09ldZ-%s", stamp, (long)ts.tv_nsec, hex);
  return BP_OK;
}

/* A publication's files being linked into the spool, on the machine's
 * cores: a suite of thousands of benchmarks has tens of thousands. */
struct adding {
  const char *src_dir, *files_dir;
  const char *const *files;
};

static bp_code add_one(void *ctx, size_t i, struct bp_err *err)
{
  const struct adding *a = ctx;
  return add_file(a->src_dir, a->files_dir, a->files[i], err);
}

bp_code bpi_spool_add(const char *spool, const char *src_dir,
                      const char *const *files, size_t nfiles,
                      const char *meta, size_t meta_len, char **id,
                      struct bp_err *err)
{
  char tmp[PATH_MAX], name[64];
  char *final = NULL, *files_dir = NULL, *path = NULL;
  *id = NULL;
  bp_code rc = bpi_file_mkdirs(spool, err);
  if(rc)
    return rc;
  if((size_t)snprintf(tmp, sizeof(tmp), "%s/" TMP_PREFIX "XXXXXX", spool) >=
     sizeof(tmp))
    return bpi_err_set(err, BPE_INVAL, 0, "spool path too long: '%s'",
                       spool);
  if(!mkdtemp(tmp))
    return bpi_err_set(err, BPE_IO, errno, "cannot create a publication in "
                       "'%s'", spool);
  files_dir = bpi_text_path_join(tmp, BP_SPOOL_FILES);
  path = bpi_text_path_join(tmp, DONE_DIR);
  if(!files_dir || !path)
    rc = bpi_err_set(err, BPE_NOMEM, 0, "spool path");
  if(!rc && (mkdir(files_dir, 0755) || mkdir(path, 0755)))
    rc = bpi_err_set(err, BPE_IO, errno, "cannot create '%s'", files_dir);
  free(path);
  path = bpi_text_path_join(tmp, FLAT_MARK);
  if(!rc)
    rc = path ? write_new(path, "", 0, false, err)
              : bpi_err_set(err, BPE_NOMEM, 0, "spool path");
  if(!rc) {
    struct adding a = {src_dir, files_dir, files};
    unsigned workers = bpi_parallel_workers(nfiles, BP_PARALLEL_MIN_ITEMS);
    rc = bpi_parallel_for(nfiles, workers, add_one, &a, err);
  }
  free(path);
  path = bpi_text_path_join(tmp, BP_SPOOL_META);
  if(!rc)
    rc = path ? write_new(path, meta, meta_len, false, err)
              : bpi_err_set(err, BPE_NOMEM, 0, "spool path");
  if(!rc)   /* the files, the links and the directories, before the rename */
    rc = sync_fs(tmp, err);
  if(!rc)
    rc = new_id(name, sizeof(name), err);
  if(!rc && !(final = bpi_text_path_join(spool, name)))
    rc = bpi_err_set(err, BPE_NOMEM, 0, "spool path");
  if(!rc && rename(tmp, final))
    rc = bpi_err_set(err, BPE_IO, errno, "cannot rename '%s' into place",
                     tmp);
  if(!rc)
    rc = fsync_path(spool, true, err);
  if(!rc && !(*id = strdup(name)))
    rc = bpi_err_set(err, BPE_NOMEM, 0, "spool id");
  if(rc) {
    struct bp_err ignored = {0};
    walk(tmp, remove_one, &ignored);
  }
  free(final);
  free(files_dir);
  free(path);
  return rc;
}

static int by_name(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Leftovers: a removal that was interrupted, an add abandoned long ago. */
static void clean_leftover(const char *spool, const char *name)
{
  bool trash = !strncmp(name, TRASH_PREFIX, strlen(TRASH_PREFIX));
  bool tmp = !strncmp(name, TMP_PREFIX, strlen(TMP_PREFIX));
  char *path = (trash || tmp) ? bpi_text_path_join(spool, name) : NULL;
  struct stat st;
  struct bp_err ignored = {0};
  if(path && (trash || (!stat(path, &st) &&
                        time(NULL) - st.st_mtime > STALE_TMP_SECS)))
    walk(path, remove_one, &ignored);
  free(path);
}

bp_code bpi_spool_list(const char *spool, char ***ids, size_t *n,
                       struct bp_err *err)
{
  *ids = NULL;
  *n = 0;
  DIR *d = opendir(spool);
  if(!d)
    return errno == ENOENT ? BP_OK
                           : bpi_err_set(err, BPE_IO, errno,
                                         "cannot read spool '%s'", spool);
  size_t cap = 0;
  bp_code rc = BP_OK;
  struct dirent *de;
  while(!rc && (de = readdir(d))) {
    if(de->d_name[0] == '.') {
      clean_leftover(spool, de->d_name);
      continue;
    }
    char *meta = bpi_text_path_join(spool, de->d_name);
    char *full = meta ? bpi_text_path_join(meta, BP_SPOOL_META) : NULL;
    struct stat st;
    bool pub = full && !stat(full, &st) && S_ISREG(st.st_mode);
    free(meta);
    free(full);
    if(!pub)
      continue;
    if(*n == cap) {
      cap = cap ? 2 * cap : 16;
      char **grown = realloc(*ids, cap * sizeof(*grown));
      if(!grown) {
        rc = bpi_err_set(err, BPE_NOMEM, 0, "spool list");
        break;
      }
      *ids = grown;
    }
    if(!((*ids)[*n] = strdup(de->d_name)))
      rc = bpi_err_set(err, BPE_NOMEM, 0, "spool list");
    else
      (*n)++;
  }
  closedir(d);
  if(rc) {
    bpi_spool_list_free(*ids, *n);
    *ids = NULL;
    *n = 0;
    return rc;
  }
  if(*n)
    qsort(*ids, *n, sizeof(**ids), by_name);
  return BP_OK;
}

void bpi_spool_list_free(char **ids, size_t n)
{
  for(size_t i = 0; i < n; i++)
    free(ids[i]);
  free(ids);
}

static bool part_name_ok(const char *part)
{
  if(!*part || part[0] == '.')
    return false;
  for(const char *c = part; *c; c++)
    if(!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
         (*c >= '0' && *c <= '9') || *c == '.' || *c == '_' || *c == '-'))
      return false;
  return true;
}

static void pub_init(struct bp_spool_pub *p)
{
  p->lock_fd = -1;
  p->log_fd = -1;
  bpi_strtab_init(&p->logged);
  bpi_strtab_init(&p->marked);
  bpi_strtab_init(&p->direct_parts);
  pthread_mutex_init(&p->log_lock, NULL);
}

/* The parts done.log names, into p->logged.  A last line without its
 * newline is a write a kill cut short: that part is not done (sending
 * it again is what an unsynced mark allows). */
static bp_code load_done_log(struct bp_spool_pub *p, struct bp_err *err)
{
  char *path = bpi_text_path_join(p->dir, DONE_LOG);
  char *text = NULL;
  size_t len = 0;
  struct bp_err missing = {0};
  bp_code rc = path ? bpi_file_read(path, &text, &len, &missing)
                    : bpi_err_set(err, BPE_NOMEM, 0, "spool path");
  if(rc == BPE_NOT_FOUND || (rc && path && missing.sys_errno == ENOENT))
    rc = BP_OK;  /* nothing marked yet, or an older version's spool */
  else if(rc && path)
    *err = missing;
  /* a torn last line is cut off before the next mark is appended */
  char *last = text && len ? memrchr(text, '\n', len) : NULL;
  p->log_torn = len && text && text[len - 1] != '\n';
  p->log_whole = last ? (size_t)(last - text) + 1 : 0;
  char *line = text;
  while(!rc && line && line < text + len) {
    char *nl = memchr(line, '\n', (size_t)(text + len - line));
    if(!nl)
      break;
    *nl = '\0';
    if(part_name_ok(line) &&
       bpi_strtab_intern(&p->logged, line) == BP_NONE)
      rc = bpi_err_set(err, BPE_NOMEM, 0, "spool marks");
    line = nl + 1;
  }
  free(text);
  free(path);
  return rc;
}

bp_code bpi_spool_open(const char *spool, const char *id,
                       struct bp_spool_pub **pub, struct bp_err *err)
{
  *pub = NULL;
  if(!*id || id[0] == '.' || strchr(id, '/'))
    return bpi_err_set(err, BPE_INVAL, 0, "'%s' is not a publication id",
                       id);
  struct bp_spool_pub *p = calloc(1, sizeof(*p));
  char *lock = NULL;
  bp_code rc = BP_OK;
  if(p)
    pub_init(p);
  if(!p || !(p->id = strdup(id)) ||
     !(p->dir = bpi_text_path_join(spool, id)) ||
     !(lock = bpi_text_path_join(p->dir, LOCK_FILE))) {
    rc = bpi_err_set(err, BPE_NOMEM, 0, "spool");
    goto fail;
  }
  p->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if(p->lock_fd < 0) {
    if(errno != ENOENT)
      rc = bpi_err_set(err, BPE_IO, errno, "cannot open '%s'", lock);
    goto fail;  /* ENOENT: delivered and removed meanwhile */
  }
  if(flock(p->lock_fd, LOCK_EX | LOCK_NB)) {
    if(errno != EWOULDBLOCK)
      rc = bpi_err_set(err, BPE_IO, errno, "cannot lock '%s'", lock);
    goto fail;  /* another process delivers it */
  }
  /* the holder before us may have removed it after we opened the lock */
  struct stat a, b;
  if(fstat(p->lock_fd, &a) || stat(lock, &b) || a.st_ino != b.st_ino ||
     a.st_dev != b.st_dev)
    goto fail;
  free(lock);
  lock = bpi_text_path_join(p->dir, FLAT_MARK);
  p->flat = lock && !access(lock, F_OK);
  free(lock);
  lock = NULL;
  rc = load_done_log(p, err);
  if(rc)
    goto fail;
  *pub = p;
  return BP_OK;
fail:
  free(lock);
  bpi_spool_close(p);
  return rc;
}

void bpi_spool_close(struct bp_spool_pub *p)
{
  if(!p)
    return;
  if(p->lock_fd >= 0)
    close(p->lock_fd);  /* releases the flock */
  if(p->log_fd >= 0)
    close(p->log_fd);
  bpi_strtab_cleanup(&p->logged);
  bpi_strtab_cleanup(&p->marked);
  pthread_mutex_destroy(&p->log_lock);
  free(p->id);
  free(p->dir);
  free(p->src_dir);
  free(p->meta);
  for(size_t i = 0; i < p->direct_values_cap; i++)
    free(p->direct_values[i]);
  free(p->direct_values);
  bpi_strtab_cleanup(&p->direct_parts);
  free(p);
}

bp_code bpi_spool_direct(const char *src_dir, const char *meta,
                         const char *id, struct bp_spool_pub **pub,
                         struct bp_err *err)
{
  struct bp_spool_pub *p = calloc(1, sizeof(*p));
  *pub = NULL;
  if(p)
    pub_init(p);
  if(!p || !(p->id = strdup(id)) || !(p->src_dir = strdup(src_dir)) ||
     !(p->meta = strdup(meta))) {
    bpi_spool_close(p);
    return bpi_err_set(err, BPE_NOMEM, 0, "publication");
  }
  *pub = p;
  return BP_OK;
}

bp_code bpi_spool_meta(const struct bp_spool_pub *p, char **text,
                       size_t *len, struct bp_err *err)
{
  if(p->meta) {
    *text = strdup(p->meta);
    if(len)
      *len = *text ? strlen(*text) : 0;
    return *text ? BP_OK : bpi_err_set(err, BPE_NOMEM, 0, "publication");
  }
  char *path = bpi_text_path_join(p->dir, BP_SPOOL_META);
  bp_code rc = path ? bpi_file_read(path, text, len, err)
                    : bpi_err_set(err, BPE_NOMEM, 0, "spool path");
  free(path);
  return rc;
}

char *bpi_spool_path(const struct bp_spool_pub *p, const char *rel)
{
  size_t n = strlen(BP_SPOOL_FILES);
  bool file = !strncmp(rel, BP_SPOOL_FILES, n) && rel[n] == '/' && rel[n + 1];
  if(!p->src_dir && p->flat && file) {
    struct bp_buf b;
    bpi_buf_init(&b);
    bpi_buf_add(&b, rel, n + 1);
    char *path = NULL;
    if(flat_name(rel + n + 1, &b))
      path = bpi_text_path_join(p->dir, b.data);
    else if(!bpi_buf_failed(&b))
      path = bpi_text_path_join(p->dir, rel);
    bpi_buf_cleanup(&b);
    return path;
  }
  if(!p->src_dir)
    return bpi_text_path_join(p->dir, rel);
  /* direct: only the files are on disk, where the run left them */
  if(strncmp(rel, BP_SPOOL_FILES, n) || (rel[n] && rel[n] != '/'))
    return NULL;
  return rel[n] ? bpi_text_path_join(p->src_dir, rel + n + 1)
                : strdup(p->src_dir);
}

/* A direct publication's mark for part (a copy, into *value when value
 * is not NULL), or false.  Its marks are a table, not a list: a local
 * suite's publication marks tens of thousands of parts, each asked for
 * first. */
static bool direct_mark(struct bp_spool_pub *p, const char *part,
                        char **value)
{
  pthread_mutex_lock(&p->log_lock);
  uint32_t id = bpi_strtab_find(&p->direct_parts, part);
  /* a part whose value could not be kept is not marked */
  bool is = id != BP_NONE && id < p->direct_values_cap &&
            p->direct_values[id];
  if(is && value)
    is = (*value = strdup(p->direct_values[id])) != NULL;
  pthread_mutex_unlock(&p->log_lock);
  return is;
}

/* Mark part with value (a later mark replaces its value, as a marker
 * file renamed over another does). */
static bp_code direct_add_mark(struct bp_spool_pub *p, const char *part,
                               const char *value, struct bp_err *err)
{
  bp_code rc = BP_OK;
  char *copy = strdup(value);
  pthread_mutex_lock(&p->log_lock);
  uint32_t id = copy ? bpi_strtab_intern(&p->direct_parts, part) : BP_NONE;
  if(id != BP_NONE && id >= p->direct_values_cap) {
    size_t cap = p->direct_values_cap ? 2 * p->direct_values_cap : 64;
    char **grown = realloc(p->direct_values, cap * sizeof(*grown));
    if(grown) {
      memset(grown + p->direct_values_cap, 0,
             (cap - p->direct_values_cap) * sizeof(*grown));
      p->direct_values = grown;
      p->direct_values_cap = cap;
    }
  }
  if(id == BP_NONE || id >= p->direct_values_cap)
    rc = bpi_err_set(err, BPE_NOMEM, 0, "publication mark");
  else {
    free(p->direct_values[id]);
    p->direct_values[id] = copy;
    copy = NULL;
  }
  pthread_mutex_unlock(&p->log_lock);
  free(copy);
  return rc;
}

/* Whether done.log names part (this process's marks included). */
static bool logged(struct bp_spool_pub *p, const char *part)
{
  pthread_mutex_lock(&p->log_lock);
  bool is = bpi_strtab_find(&p->logged, part) != BP_NONE;
  pthread_mutex_unlock(&p->log_lock);
  return is;
}

/* Whether done/ has part's file, from one listing of done/ (this
 * process holds the publication's lock: only it adds marks, and
 * mark_part adds each to the list).  A listing that fails leaves the
 * question to the file system. */
static bool marked_file(struct bp_spool_pub *p, const char *part,
                        bool *known)
{
  pthread_mutex_lock(&p->log_lock);
  if(!p->marked_listed) {
    char *done = bpi_text_path_join(p->dir, DONE_DIR);
    DIR *d = done ? opendir(done) : NULL;
    struct dirent *de;
    /* no done/ (an entry an older version spooled): no such marks */
    bool ok = d != NULL || (done && errno == ENOENT);
    while(ok && d && (de = readdir(d)))
      if(de->d_name[0] != '.')
        ok = bpi_strtab_intern(&p->marked, de->d_name) != BP_NONE;
    p->marked_listed = ok;
    if(d)
      closedir(d);
    free(done);
  }
  *known = p->marked_listed;
  bool is = *known && bpi_strtab_find(&p->marked, part) != BP_NONE;
  pthread_mutex_unlock(&p->log_lock);
  return is;
}

static void add_marked(struct bp_spool_pub *p, const char *part)
{
  pthread_mutex_lock(&p->log_lock);
  if(p->marked_listed && bpi_strtab_intern(&p->marked, part) == BP_NONE)
    p->marked_listed = false;  /* out of memory: list again next time */
  pthread_mutex_unlock(&p->log_lock);
}

bool bpi_spool_done(struct bp_spool_pub *p, const char *part,
                    char **value)
{
  if(value)
    *value = NULL;
  if(!part_name_ok(part))
    return false;
  if(p->src_dir)
    return direct_mark(p, part, value);
  if(logged(p, part)) {
    if(value)
      *value = strdup("");
    return !value || *value;
  }
  bool known;
  if(!marked_file(p, part, &known) && known)
    return false;
  char *done = bpi_text_path_join(p->dir, DONE_DIR);
  char *path = done ? bpi_text_path_join(done, part) : NULL;
  struct bp_err ignored = {0};
  bool is = false;
  if(path && value)
    is = bpi_file_read(path, value, NULL, &ignored) == BP_OK;
  else if(path)
    is = access(path, F_OK) == 0;
  free(done);
  free(path);
  return is;
}

/* A mark with no value, not synced: one "part\n" line appended to
 * done.log.  A suite's thousands of artifacts cost one file, not one
 * file each (creating a file is an inode to allocate, and removing the
 * publication gives each back, with a discard on a disk mounted with
 * it).  One write(2) per line on an O_APPEND descriptor: lines from
 * several threads never interleave, and a kill can only cut the last
 * one short, which load_done_log leaves out. */
static bp_code mark_logged(struct bp_spool_pub *p, const char *part,
                           struct bp_err *err)
{
  char line[NAME_MAX + 2];
  int n = snprintf(line, sizeof(line), "%s\n", part);
  if(n < 0 || (size_t)n >= sizeof(line))
    return bpi_err_set(err, BPE_INVAL, 0, "bad part name '%s'", part);
  bp_code rc = BP_OK;
  pthread_mutex_lock(&p->log_lock);
  if(p->log_fd < 0) {
    char *path = bpi_text_path_join(p->dir, DONE_LOG);
    p->log_fd = path ? open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
                            0644) : -1;
    if(p->log_fd < 0)
      rc = bpi_err_set(err, BPE_IO, path ? errno : ENOMEM,
                       "cannot open '%s'", path ? path : DONE_LOG);
    else if(p->log_torn && ftruncate(p->log_fd, (off_t)p->log_whole))
      rc = bpi_err_set(err, BPE_IO, errno, "cannot write '%s'", path);
    free(path);
  }
  bool known = !rc && bpi_strtab_find(&p->logged, part) != BP_NONE;
  if(!rc && !known && bpi_strtab_intern(&p->logged, part) == BP_NONE)
    rc = bpi_err_set(err, BPE_NOMEM, 0, "spool marks");
  int fd = p->log_fd;
  pthread_mutex_unlock(&p->log_lock);
  /* the write outside the lock: the file system's time is not the
   * other workers' */
  if(!rc && !known && write(fd, line, (size_t)n) != n)
    rc = bpi_err_set(err, BPE_IO, errno, "cannot mark '%s' done", part);
  return rc;
}

static bp_code mark_part(struct bp_spool_pub *p, const char *part,
                         const char *value, bool sync, struct bp_err *err)
{
  if(!part_name_ok(part))
    return bpi_err_set(err, BPE_INVAL, 0, "bad part name '%s'", part);
  if(p->src_dir)
    return direct_add_mark(p, part, value ? value : "", err);
  if(!sync && (!value || !*value))
    return mark_logged(p, part, err);
  char *done = bpi_text_path_join(p->dir, DONE_DIR);
  char *path = done ? bpi_text_path_join(done, part) : NULL;
  struct bp_buf tmp;
  bpi_buf_init(&tmp);
  bpi_buf_printf(&tmp, "%s/.%s.tmp", done ? done : "", part);
  bp_code rc = path && !bpi_buf_failed(&tmp)
                 ? BP_OK : bpi_err_set(err, BPE_NOMEM, 0, "spool marker");
  if(!rc) {
    unlink(tmp.data);  /* a leftover of a kill; we hold the lock */
    rc = write_new(tmp.data, value ? value : "", value ? strlen(value) : 0,
                   sync, err);
  }
  if(!rc && rename(tmp.data, path))
    rc = bpi_err_set(err, BPE_IO, errno, "cannot rename into '%s'", path);
  if(!rc)
    add_marked(p, part);
  if(!rc && sync)
    rc = fsync_path(done, true, err);
  bpi_buf_cleanup(&tmp);
  free(done);
  free(path);
  return rc;
}

bp_code bpi_spool_mark(struct bp_spool_pub *p, const char *part,
                       const char *value, struct bp_err *err)
{
  return mark_part(p, part, value, true, err);
}

bp_code bpi_spool_mark_unsynced(struct bp_spool_pub *p, const char *part,
                                const char *value, struct bp_err *err)
{
  return mark_part(p, part, value, false, err);
}

bp_code bpi_spool_sync(struct bp_spool_pub *p, struct bp_err *err)
{
  return p->src_dir ? BP_OK : sync_fs(p->dir, err);
}

/* The names in a folder being unlinked, on the machine's cores. */
struct unlinking {
  int dir;
  char **names;
};

static bp_code unlink_name(void *ctx, size_t i, struct bp_err *err)
{
  (void)err;
  const struct unlinking *u = ctx;
  unlinkat(u->dir, u->names[i], 0);  /* a folder stays, for walk */
  return BP_OK;
}

/* The files of pub_dir's (flat) files folder, before walk removes what
 * is left one by one: a suite's tens of thousands of links. */
static void unlink_files(const char *pub_dir)
{
  char *files = bpi_text_path_join(pub_dir, BP_SPOOL_FILES);
  DIR *d = files ? opendir(files) : NULL;
  struct unlinking u = {d ? dirfd(d) : -1, NULL};
  size_t n = 0, cap = 0;
  struct dirent *de;
  while(d && (de = readdir(d))) {
    if(!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
      continue;
    if(n == cap) {
      char **grown = realloc(u.names, (cap = cap ? 2 * cap : 256) *
                                      sizeof(*grown));
      if(!grown)
        break;
      u.names = grown;
    }
    if(!(u.names[n] = strdup(de->d_name)))
      break;
    n++;
  }
  if(n)
    bpi_parallel_for(n, bpi_parallel_workers(n, BP_PARALLEL_MIN_ITEMS),
                     unlink_name, &u, NULL);
  for(size_t i = 0; i < n; i++)
    free(u.names[i]);
  free(u.names);
  if(d)
    closedir(d);
  free(files);
}

bp_code bpi_spool_note_failure(struct bp_spool_pub *p, const char *text,
                               struct bp_err *err)
{
  if(p->src_dir || !p->dir)
    return BP_OK;
  char line[LAST_FAILURE_MAX], when[32];
  time_t now = time(NULL);
  struct tm tm;
  if(!gmtime_r(&now, &tm) ||
     !strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm))
    snprintf(when, sizeof(when), "?");
  /* one line, cut to a size a listing can show */
  int w = snprintf(line, sizeof(line), "%s: %.*s\n", when,
                   (int)strcspn(text ? text : "", "\r\n"), text ? text : "");
  if(w < 0)
    return bpi_err_set(err, BPE_SYS, 0, "last failure");
  size_t len = (size_t)w < sizeof(line) ? (size_t)w : sizeof(line) - 1;
  char *path = bpi_text_path_join(p->dir, LAST_FAILURE);
  if(!path)
    return bpi_err_set(err, BPE_NOMEM, 0, "last failure");
  bp_code rc = bpi_file_write(path, line, len, false, err);
  free(path);
  return rc;
}

char *bpi_spool_last_failure(const struct bp_spool_pub *p)
{
  char *path = p->src_dir || !p->dir ? NULL
               : bpi_text_path_join(p->dir, LAST_FAILURE);
  char *text = NULL;
  size_t len = 0;
  struct bp_err ignored = {0};
  if(path && !bpi_file_read(path, &text, &len, &ignored)) {
    text[strcspn(text, "\r\n")] = '\0';
    if(!*text) {
      free(text);
      text = NULL;
    }
  }
  free(path);
  return text;
}

bp_code bpi_spool_remove(struct bp_spool_pub *p, struct bp_err *err)
{
  if(p->src_dir) {  /* direct: nothing on disk */
    bpi_spool_close(p);
    return BP_OK;
  }
  /* one rename takes it out of every listing; the files go after */
  char *slash = strrchr(p->dir, '/');
  struct bp_buf trash;
  bpi_buf_init(&trash);
  bpi_buf_printf(&trash, "%.*s/" TRASH_PREFIX "%s",
                 slash ? (int)(slash - p->dir) : 1, slash ? p->dir : ".",
                 p->id);
  bp_code rc = bpi_buf_failed(&trash)
                 ? bpi_err_set(err, BPE_NOMEM, 0, "spool path") : BP_OK;
  if(!rc && rename(p->dir, trash.data))
    rc = bpi_err_set(err, BPE_IO, errno, "cannot remove '%s'", p->dir);
  if(!rc && slash) {
    *slash = '\0';
    rc = fsync_path(p->dir, true, err);
    *slash = '/';
  }
  if(!rc)
    unlink_files(trash.data);
  if(!rc)
    rc = walk(trash.data, remove_one, err);
  bpi_buf_cleanup(&trash);
  bpi_spool_close(p);
  return rc;
}

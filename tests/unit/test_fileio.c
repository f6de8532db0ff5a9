/* fileio.c's writer: the size and SHA-256 commit hands back are those of
 * the file on disk (plain and gzip); where the kernel allows, the file
 * has no name until commit (no temporary name in its directory) and then
 * appears whole, mode 0644 whatever the umask; abort leaves nothing; a
 * file already there is replaced by a new inode, never rewritten in
 * place, and keeps its old bytes until commit; bpi_file_write goes the
 * same way. */
#include "bp_setup.h"
#include "check.h"

#include "buf.h"
#include "fileio.h"
#include "sha256.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A new directory under $TMPDIR (else the system's), named from name. */
static bool make_dir(char *dir, size_t size, const char *name)
{
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, size, "%s/%s.XXXXXX", tmp && *tmp ? tmp : P_tmpdir, name);
  return mkdtemp(dir) != NULL;
}

static void remove_tree(const char *dir)
{
  char cmd[600];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
  CHECK_EQ_INT(system(cmd), 0);
}

/* How many entries dir holds (. and .. aside). */
static int entries(const char *dir)
{
  DIR *d = opendir(dir);
  int n = 0;
  if(!d)
    return -1;
  for(struct dirent *e; (e = readdir(d));)
    n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  closedir(d);
  return n;
}

/* Whether dir's file system makes files without a name (O_TMPFILE). */
static bool unnamed_files(const char *dir)
{
#ifdef O_TMPFILE
  int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  if(fd < 0)
    return false;
  close(fd);
  return access("/proc/self/fd", X_OK) == 0;
#else
  (void)dir;
  return false;
#endif
}

/* The whole file at path, raw (no gunzip), malloc'd. */
static unsigned char *raw_bytes(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  unsigned char *b = NULL;
  *len = 0;
  if(!f)
    return NULL;
  struct stat st;
  if(!fstat(fileno(f), &st) && (b = malloc((size_t)st.st_size + 1)))
    *len = fread(b, 1, (size_t)st.st_size, f);
  fclose(f);
  return b;
}

/* The digest commit gave equals the file's: its size and SHA-256. */
static void check_digest(const char *path, const struct bp_file_digest *d)
{
  size_t len;
  unsigned char *b = raw_bytes(path, &len);
  unsigned char want[BP_SHA256_LEN];
  CHECK(b != NULL);
  if(!b)
    return;
  bpi_sha256(b, len, want);
  CHECK_EQ_INT(d->bytes, len);
  CHECK(memcmp(d->sha256, want, BP_SHA256_LEN) == 0);
  char hex[2 * BP_SHA256_LEN + 1], got[2 * BP_SHA256_LEN + 1];
  struct bp_err err = {0};
  CHECK_EQ_INT(bpi_sha256_file(path, hex, &err), BP_OK);
  bpi_hex_encode(d->sha256, BP_SHA256_LEN, got);
  CHECK_EQ_STR(got, hex);
  free(b);
}

/* Written in pieces, plain and gzip (one write larger than gzip's
 * output buffer): the digest is that of the bytes on disk, and the
 * content reads back. */
static void test_digest(void)
{
  char dir[512], path[600];
  struct bp_err err = {0};
  CHECK(make_dir(dir, sizeof(dir), "test_fileio"));
  size_t big = 300000;
  char *data = malloc(big);
  CHECK(data != NULL);
  if(!data)
    return;
  for(size_t i = 0; i < big; i++)
    data[i] = (char)('a' + (i * 7 + i / 100) % 26);
  for(int gzip = 0; gzip <= 1; gzip++) {
    snprintf(path, sizeof(path), "%s/f%d", dir, gzip);
    struct bp_file_out *f = NULL;
    struct bp_file_digest d;
    memset(&d, 0xff, sizeof(d));
    CHECK_EQ_INT(bpi_file_out_open(&f, path, BP_FILE_SHA256 |
                                   (gzip ? BP_FILE_GZIP : 0u), &err), BP_OK);
    if(!f)
      continue;
    CHECK_EQ_INT(bpi_file_out_write(f, "abc", 3), BP_OK);
    CHECK_EQ_INT(bpi_file_out_write(f, data, big), BP_OK);
    CHECK_EQ_INT(bpi_file_out_commit(f, &d, &err), BP_OK);
    check_digest(path, &d);
    char *back = NULL;
    size_t len = 0;
    CHECK_EQ_INT(bpi_file_read(path, &back, &len, &err), BP_OK);
    CHECK_EQ_INT(len, big + 3);
    CHECK(back && !memcmp(back, "abc", 3) && !memcmp(back + 3, data, big));
    free(back);
    if(gzip)
      CHECK(d.bytes < big / 4);  /* compressed: the bytes on disk */
  }
  /* a known vector: "abc" */
  snprintf(path, sizeof(path), "%s/abc", dir);
  struct bp_file_out *f = NULL;
  struct bp_file_digest d;
  CHECK_EQ_INT(bpi_file_out_open(&f, path, BP_FILE_SHA256, &err), BP_OK);
  if(f) {
    bpi_file_out_write(f, "abc", 3);
    CHECK_EQ_INT(bpi_file_out_commit(f, &d, &err), BP_OK);
    char hex[2 * BP_SHA256_LEN + 1];
    bpi_hex_encode(d.sha256, BP_SHA256_LEN, hex);
    CHECK_EQ_STR(hex, "ba7816bf8f01cfea414140de5dae2223"
                      "b00361a396177a9cb410ff61f20015ad");
    CHECK_EQ_INT(d.bytes, 3);
  }
  /* an empty gzip stream is still a digest of its bytes */
  snprintf(path, sizeof(path), "%s/empty.gz", dir);
  CHECK_EQ_INT(bpi_file_out_open(&f, path, BP_FILE_SHA256 | BP_FILE_GZIP,
                                 &err), BP_OK);
  if(f) {
    CHECK_EQ_INT(bpi_file_out_commit(f, &d, &err), BP_OK);
    CHECK(d.bytes > 0);
    check_digest(path, &d);
  }
  free(data);
  remove_tree(dir);
}

/* A new file: nothing in its directory until commit (no temporary name
 * where the file system makes unnamed files), then the file, whole, mode
 * 0644 under any umask. */
static void test_appears_at_commit(void)
{
  char dir[512], path[600];
  struct bp_err err = {0};
  CHECK(make_dir(dir, sizeof(dir), "test_fileio"));
  bool unnamed = unnamed_files(dir);
  if(!unnamed)
    printf("note: %s makes no unnamed files: the temporary name is used\n",
           dir);
  snprintf(path, sizeof(path), "%s/a.txt", dir);
  mode_t old_mask = umask(077);
  struct bp_file_out *f = NULL;
  CHECK_EQ_INT(bpi_file_out_open(&f, path, 0, &err), BP_OK);
  umask(old_mask);
  if(!f)
    return;
  CHECK_EQ_INT(bpi_file_out_write(f, "hello\n", 6), BP_OK);
  CHECK(access(path, F_OK) != 0);
  if(unnamed)
    CHECK_EQ_INT(entries(dir), 0);
  CHECK_EQ_INT(bpi_file_out_commit(f, NULL, &err), BP_OK);
  CHECK_EQ_INT(entries(dir), 1);
  struct stat st;
  CHECK_EQ_INT(stat(path, &st), 0);
  CHECK_EQ_INT(st.st_mode & 07777, 0644);
  CHECK(S_ISREG(st.st_mode));
  char *back = NULL;
  CHECK_EQ_INT(bpi_file_read(path, &back, NULL, &err), BP_OK);
  CHECK_EQ_STR(back, "hello\n");
  free(back);
  /* bpi_file_write: the same way, the same mode */
  snprintf(path, sizeof(path), "%s/b.txt", dir);
  old_mask = umask(027);
  CHECK_EQ_INT(bpi_file_write(path, "x", 1, false, &err), BP_OK);
  umask(old_mask);
  CHECK_EQ_INT(stat(path, &st), 0);
  CHECK_EQ_INT(st.st_mode & 07777, 0644);
  CHECK_EQ_INT(entries(dir), 2);
  /* a file in the current directory (a path without a slash) */
  char cwd[600];
  CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
  CHECK_EQ_INT(chdir(dir), 0);
  CHECK_EQ_INT(bpi_file_write("c.txt", "y", 1, false, &err), BP_OK);
  CHECK_EQ_INT(chdir(cwd), 0);
  CHECK_EQ_INT(entries(dir), 3);
  remove_tree(dir);
}

/* Aborted, before or after writing, over nothing or over a file: nothing
 * stays, and a file that was there is untouched. */
static void test_abort(void)
{
  char dir[512], path[600];
  struct bp_err err = {0};
  CHECK(make_dir(dir, sizeof(dir), "test_fileio"));
  snprintf(path, sizeof(path), "%s/a.gz", dir);
  struct bp_file_out *f = NULL;
  CHECK_EQ_INT(bpi_file_out_open(&f, path, BP_FILE_GZIP | BP_FILE_SHA256,
                                 &err), BP_OK);
  bpi_file_out_abort(f);
  CHECK_EQ_INT(entries(dir), 0);
  CHECK_EQ_INT(bpi_file_out_open(&f, path, BP_FILE_GZIP, &err), BP_OK);
  if(f)
    CHECK_EQ_INT(bpi_file_out_write(f, "data", 4), BP_OK);
  bpi_file_out_abort(f);
  CHECK_EQ_INT(entries(dir), 0);
  CHECK_EQ_INT(bpi_file_write(path, "old", 3, false, &err), BP_OK);
  CHECK_EQ_INT(bpi_file_out_open(&f, path, 0, &err), BP_OK);
  if(f)
    CHECK_EQ_INT(bpi_file_out_write(f, "new", 3), BP_OK);
  bpi_file_out_abort(f);
  CHECK_EQ_INT(entries(dir), 1);
  char *back = NULL;
  CHECK_EQ_INT(bpi_file_read(path, &back, NULL, &err), BP_OK);
  CHECK_EQ_STR(back, "old");
  free(back);
  remove_tree(dir);
}

/* A file already there: its old bytes stay readable until commit, then
 * the new ones are a new inode under its name (a hard link to the old
 * one, as the file store makes, keeps the old bytes), no temporary name
 * is left behind, and the digest is the new file's. */
static void test_replace(void)
{
  char dir[512], path[600], kept[600];
  struct bp_err err = {0};
  CHECK(make_dir(dir, sizeof(dir), "test_fileio"));
  snprintf(path, sizeof(path), "%s/a.json", dir);
  snprintf(kept, sizeof(kept), "%s/stored.json", dir);
  CHECK_EQ_INT(bpi_file_write(path, "old", 3, false, &err), BP_OK);
  CHECK_EQ_INT(link(path, kept), 0);
  struct stat before, after;
  CHECK_EQ_INT(stat(path, &before), 0);
  for(int round = 0; round < 3; round++) {
    struct bp_file_out *f = NULL;
    struct bp_file_digest d;
    CHECK_EQ_INT(bpi_file_out_open(&f, path, BP_FILE_SHA256, &err), BP_OK);
    if(!f)
      return;
    CHECK_EQ_INT(bpi_file_out_write(f, "new bytes", 9), BP_OK);
    char *back = NULL;
    CHECK_EQ_INT(bpi_file_read(path, &back, NULL, &err), BP_OK);
    CHECK_EQ_STR(back, round ? "new bytes" : "old");
    free(back);
    CHECK_EQ_INT(bpi_file_out_commit(f, &d, &err), BP_OK);
    check_digest(path, &d);
    CHECK_EQ_INT(stat(path, &after), 0);
    CHECK(after.st_ino != before.st_ino);
    CHECK_EQ_INT(after.st_mode & 07777, 0644);
    before = after;
    CHECK_EQ_INT(entries(dir), 2);  /* the file and the old one's link */
    CHECK_EQ_INT(bpi_file_read(path, &back, NULL, &err), BP_OK);
    CHECK_EQ_STR(back, "new bytes");
    free(back);
  }
  char *old = NULL;
  CHECK_EQ_INT(bpi_file_read(kept, &old, NULL, &err), BP_OK);
  CHECK_EQ_STR(old, "old");
  free(old);
  remove_tree(dir);
}

/* A directory that cannot be written: an error naming the file, nothing
 * made (the unnamed file's open fails there too, and the named one says
 * why). */
static void test_refused(void)
{
  char dir[512], path[600];
  struct bp_err err = {0};
  CHECK(make_dir(dir, sizeof(dir), "test_fileio"));
  snprintf(path, sizeof(path), "%s/missing/a.txt", dir);
  struct bp_file_out *f = NULL;
  CHECK_EQ_INT(bpi_file_out_open(&f, path, 0, &err), BPE_IO);
  CHECK(strstr(err.msg, "missing/a.txt") != NULL);
  CHECK_EQ_INT(entries(dir), 0);
  remove_tree(dir);
}

/* The names a write gives its file before it is in place (those a killed
 * writer leaves behind), and only those: not a user's file that merely
 * begins alike. */
static void test_temp_names(void)
{
  CHECK(bpi_file_is_temp_of("profile.pb.gz.tmpAb3dE9", "profile.pb.gz"));
  CHECK(bpi_file_is_temp_of("summary.json.tmp4242-0", "summary.json"));
  CHECK(bpi_file_is_temp_of("summary.json.tmp1-17", "summary.json"));
  CHECK(!bpi_file_is_temp_of("summary.json", "summary.json"));
  CHECK(!bpi_file_is_temp_of("summary.json.tmp", "summary.json"));
  CHECK(!bpi_file_is_temp_of("summary.json.tmpAb3dE", "summary.json"));
  CHECK(!bpi_file_is_temp_of("summary.json.tmpAb3dE9x", "summary.json"));
  CHECK(!bpi_file_is_temp_of("summary.json.tmp-notes", "summary.json"));
  CHECK(!bpi_file_is_temp_of("summary.json.tmp12-", "summary.json"));
  CHECK(!bpi_file_is_temp_of("summary.json.tmp12-3x", "summary.json"));
  CHECK(!bpi_file_is_temp_of("summary.json.tmp.a_b.c", "summary.json"));
  CHECK(!bpi_file_is_temp_of("my-summary.json.tmp1-2", "summary.json"));
}

int main(void)
{
  test_temp_names();
  test_digest();
  test_appears_at_commit();
  test_abort();
  test_replace();
  test_refused();
  return check_exit();
}

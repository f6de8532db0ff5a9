/* fileio: the only place that writes artifact files and the only zlib user.
 * Every artifact appears whole under its name at once (a file without a
 * name linked into place, or a temporary file renamed over the old one),
 * so a reader never sees half a file and a failure (disk full, read-only
 * directory) leaves no partial artifact behind. */
#ifndef BP_LIB_FILEIO_H
#define BP_LIB_FILEIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "benchprof/benchprof.h"
#include "sha256.h"

/* Create dir and its parents (mode 0755). */
bp_code bpi_file_mkdirs(const char *dir, struct bp_err *err);

/* Whether bpi_file_mkdirs(dir) and then writing in dir would work for
 * this process, found with stat() and access() only (nothing is created):
 * dir an existing directory it may write and search, or missing with its
 * nearest existing parent such a directory.  BPE_IO, naming dir, the
 * directory in the way and the errno (EACCES, EROFS, ENOTDIR), when not. */
bp_code bpi_file_dir_usable(const char *dir, struct bp_err *err);

/* Create rel (relative, '/'-separated) under the directory root, each
 * level with mkdirat() and opened with O_NOFOLLOW | O_DIRECTORY: a
 * symbolic link (or a file) anywhere under root is refused, never
 * followed, so what is written there stays under root.  root itself is
 * taken as given. */
bp_code bpi_file_mkdirs_under(const char *root, const char *rel,
                              struct bp_err *err);

/* Write data to path atomically; gzip-compress it first when gzip is true. */
bp_code bpi_file_write(const char *path, const void *data, size_t len,
                       bool gzip, struct bp_err *err);

/* Append data to the text file path (created when missing), after a
 * newline when the file does not end with one; the whole file rewritten
 * atomically, so a reader never sees half of it. */
bp_code bpi_file_append(const char *path, const void *data, size_t len,
                        struct bp_err *err);

/* The same in pieces, for artifacts too large to build in memory first:
 * open, write (gzip-compressed as it goes with BP_FILE_GZIP), then
 * commit (the file appears under path, whole) or abort (nothing stays).
 * Where the kernel allows it (Linux's O_TMPFILE, and /proc to link it
 * with), the file is made without a name in path's directory and linked
 * as path at commit: no temporary name to generate, no rename.  Over a
 * file that is already there, or without O_TMPFILE, it goes under a
 * temporary name next to path and is renamed over it, so a reader sees
 * the old file or the new one, never half of one.  Either way the file's
 * mode is 0644 (umask not applied) and it is a new inode: a file
 * benchprof wrote is never changed in place (the file:// store links to
 * them).  A failed write is remembered and reported by commit, which
 * frees f either way. */
struct bp_file_out;
#define BP_FILE_GZIP 1u    /* compress what is written */
/* hash the bytes as they go to the file (after gzip): commit hands back
 * their size and SHA-256, so that nobody reads the file back for them */
#define BP_FILE_SHA256 2u

/* The bytes that landed on disk: their count and their SHA-256. */
struct bp_file_digest {
  uint64_t bytes;
  unsigned char sha256[BP_SHA256_LEN];
};

bp_code bpi_file_out_open(struct bp_file_out **f, const char *path,
                          unsigned flags, struct bp_err *err);
bp_code bpi_file_out_write(struct bp_file_out *f, const void *data,
                           size_t len);
/* digest: NULL, or (f opened with BP_FILE_SHA256) where the file's size
 * and SHA-256 go once it is in place. */
bp_code bpi_file_out_commit(struct bp_file_out *f,
                            struct bp_file_digest *digest,
                            struct bp_err *err);
void bpi_file_out_abort(struct bp_file_out *f);
/* Whether name is one that a write of target (a file name, no '/') gives
 * the file while it is written: target ".tmp" and mkstemp's six letters
 * or digits, or ".tmp" PID "-" N.  A process killed while it wrote
 * leaves it behind. */
bool bpi_file_is_temp_of(const char *name, const char *target);

/* The most bpi_file_read reads of one file, counted after gunzip. */
#define BP_FILE_READ_MAX ((size_t)256 << 20)

/* Read a whole regular file (NUL-terminated); gunzip when it starts with
 * the gzip magic.  *out is malloc'd, the caller frees it.  A FIFO, device,
 * socket or directory is refused (BPE_IO) without blocking; more than max
 * bytes, counted after decompression, is BPE_FORMAT ("'F' is larger than
 * N bytes once decompressed"), found without inflating the rest. */
bp_code bpi_file_read_max(const char *path, size_t max, char **out,
                          size_t *len, struct bp_err *err);
/* The same with max BP_FILE_READ_MAX. */
bp_code bpi_file_read(const char *path, char **out, size_t *len,
                      struct bp_err *err);

#endif

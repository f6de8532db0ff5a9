/* sha256: SHA-256 (FIPS 180-4) of bytes and of files, for content keys and
 * integrity checks of artifacts.
 *
 * Input: bytes, in one call or in pieces (init, update..., final), or a
 * file read in blocks.  Output: the 32-byte digest, or for files its 64
 * lowercase hex digits.  Owns nothing.  Thread-safe per struct bp_sha256. */
#ifndef BP_LIB_SHA256_H
#define BP_LIB_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "benchprof/benchprof.h"

#define BP_SHA256_LEN 32

struct bp_sha256 {
  uint32_t h[8];
  uint64_t len;           /* bytes hashed so far */
  unsigned char blk[64];  /* the partial block */
  size_t nblk;
};

void bpi_sha256_init(struct bp_sha256 *s);
void bpi_sha256_update(struct bp_sha256 *s, const void *data, size_t len);
/* Writes the digest; s must be initialised again before reuse. */
void bpi_sha256_final(struct bp_sha256 *s, unsigned char out[BP_SHA256_LEN]);

/* The digest of len bytes at data in one call. */
void bpi_sha256(const void *data, size_t len,
                unsigned char out[BP_SHA256_LEN]);

/* The digest of the file at path as lowercase hex, NUL-terminated.  The
 * file is read in blocks, never whole.  BPE_IO (with errno and the path)
 * when it cannot be opened or read; hex is then unchanged. */
bp_code bpi_sha256_file(const char *path, char hex[2 * BP_SHA256_LEN + 1],
                        struct bp_err *err);

#endif

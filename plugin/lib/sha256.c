/* sha256: SHA-256 as FIPS 180-4 section 6.2 describes it, one 64-byte
 * block at a time. */
#include "bp_setup.h"
#include "sha256.h"
#include "buf.h"
#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* Bytes per read of a file (on the stack). */
#define READ_BLOCK 16384

/* The first 32 bits of the fractional parts of the cube roots of the first
 * 64 primes (FIPS 180-4 4.2.2). */
static const uint32_t K[64] = {
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
  0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
  0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
  0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
  0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
  0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};

static uint32_t rotr(uint32_t x, unsigned n)
{
  return (x >> n) | (x << (32 - n));
}

static uint32_t load_be32(const unsigned char *p)
{
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
         ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static void store_be32(unsigned char *p, uint32_t v)
{
  p[0] = (unsigned char)(v >> 24);
  p[1] = (unsigned char)(v >> 16);
  p[2] = (unsigned char)(v >> 8);
  p[3] = (unsigned char)v;
}

/* One block into the state (6.2.2 steps 1 to 4). */
static void compress(uint32_t h[8], const unsigned char blk[64])
{
  uint32_t w[64];
  for(int t = 0; t < 16; t++)
    w[t] = load_be32(blk + 4 * t);
  for(int t = 16; t < 64; t++) {
    uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
    uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
    w[t] = w[t - 16] + s0 + w[t - 7] + s1;
  }
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3];
  uint32_t e = h[4], f = h[5], g = h[6], k = h[7];
  for(int t = 0; t < 64; t++) {
    uint32_t S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
    uint32_t ch = (e & f) ^ (~e & g);
    uint32_t t1 = k + S1 + ch + K[t] + w[t];
    uint32_t S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
    uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
    uint32_t t2 = S0 + maj;
    k = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
  h[4] += e;
  h[5] += f;
  h[6] += g;
  h[7] += k;
}

void bpi_sha256_init(struct bp_sha256 *s)
{
  /* the first 32 bits of the fractional parts of the square roots of the
   * first 8 primes (5.3.3) */
  static const uint32_t h0[8] = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19
  };
  memcpy(s->h, h0, sizeof(h0));
  s->len = 0;
  s->nblk = 0;
}

void bpi_sha256_update(struct bp_sha256 *s, const void *data, size_t len)
{
  const unsigned char *p = data;
  s->len += len;
  if(s->nblk) {
    size_t take = 64 - s->nblk;
    if(take > len)
      take = len;
    memcpy(s->blk + s->nblk, p, take);
    s->nblk += take;
    p += take;
    len -= take;
    if(s->nblk < 64)
      return;
    compress(s->h, s->blk);
    s->nblk = 0;
  }
  while(len >= 64) {
    compress(s->h, p);
    p += 64;
    len -= 64;
  }
  if(len) {
    memcpy(s->blk, p, len);
    s->nblk = len;
  }
}

void bpi_sha256_final(struct bp_sha256 *s, unsigned char out[BP_SHA256_LEN])
{
  /* padding (5.1.1): 0x80, zeros to 56 mod 64, the length in bits */
  uint64_t bits = s->len * 8;
  s->blk[s->nblk++] = 0x80;
  if(s->nblk > 56) {
    memset(s->blk + s->nblk, 0, 64 - s->nblk);
    compress(s->h, s->blk);
    s->nblk = 0;
  }
  memset(s->blk + s->nblk, 0, 56 - s->nblk);
  store_be32(s->blk + 56, (uint32_t)(bits >> 32));
  store_be32(s->blk + 60, (uint32_t)bits);
  compress(s->h, s->blk);
  for(int i = 0; i < 8; i++)
    store_be32(out + 4 * i, s->h[i]);
  memset(s, 0, sizeof(*s));
}

void bpi_sha256(const void *data, size_t len, unsigned char out[BP_SHA256_LEN])
{
  struct bp_sha256 s;
  bpi_sha256_init(&s);
  bpi_sha256_update(&s, data, len);
  bpi_sha256_final(&s, out);
}

bp_code bpi_sha256_file(const char *path, char hex[2 * BP_SHA256_LEN + 1],
                        struct bp_err *err)
{
  unsigned char block[READ_BLOCK];
  unsigned char digest[BP_SHA256_LEN];
  struct bp_sha256 s;
  bp_code rc = BP_OK;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if(fd < 0)
    return bpi_err_set(err, BPE_IO, errno, "cannot open '%s'", path);
  bpi_sha256_init(&s);
  for(;;) {
    ssize_t n = read(fd, block, sizeof(block));
    if(n < 0 && errno == EINTR)
      continue;
    if(n < 0) {
      rc = bpi_err_set(err, BPE_IO, errno, "cannot read '%s'", path);
      goto out;
    }
    if(n == 0)
      break;
    bpi_sha256_update(&s, block, (size_t)n);
  }
  bpi_sha256_final(&s, digest);
  bpi_hex_encode(digest, sizeof(digest), hex);
out:
  close(fd);
  return rc;
}

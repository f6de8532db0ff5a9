/* SHA-256: the FIPS 180-4 example vectors (one call, byte by byte, and in
 * uneven pieces), and files against coreutils' sha256sum. */
#include "bp_setup.h"
#include "sha256.h"
#include "buf.h"
#include "check.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void hex_of(const unsigned char d[BP_SHA256_LEN],
                   char hex[2 * BP_SHA256_LEN + 1])
{
  bpi_hex_encode(d, BP_SHA256_LEN, hex);
}

/* The digest of msg three ways: at once, byte by byte, in pieces of 1, 2,
 * ... 127 bytes (crossing block boundaries at every offset). */
static void check_vector(const char *msg, size_t len, const char *want)
{
  unsigned char d[BP_SHA256_LEN];
  char hex[2 * BP_SHA256_LEN + 1];
  struct bp_sha256 s;

  bpi_sha256(msg, len, d);
  hex_of(d, hex);
  CHECK_EQ_STR(hex, want);

  bpi_sha256_init(&s);
  for(size_t i = 0; i < len && len < 100000; i++)
    bpi_sha256_update(&s, msg + i, 1);
  if(len < 100000) {
    bpi_sha256_final(&s, d);
    hex_of(d, hex);
    CHECK_EQ_STR(hex, want);
  }

  bpi_sha256_init(&s);
  size_t at = 0, piece = 1;
  while(at < len) {
    size_t n = len - at < piece ? len - at : piece;
    bpi_sha256_update(&s, msg + at, n);
    at += n;
    piece = piece % 127 + 1;
  }
  bpi_sha256_update(&s, msg, 0);
  bpi_sha256_final(&s, d);
  hex_of(d, hex);
  CHECK_EQ_STR(hex, want);
}

static void test_vectors(void)
{
  check_vector("", 0,
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  check_vector("abc", 3,
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  /* 448 bits: the padding needs a second block */
  static const char m448[] =
    "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  check_vector(m448, strlen(m448),
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  static const char m896[] =
    "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
    "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
  check_vector(m896, strlen(m896),
    "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  char *million = malloc(1000000);
  CHECK(million != NULL);
  if(million) {
    memset(million, 'a', 1000000);
    check_vector(million, 1000000,
      "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(million);
  }
  /* lengths around the padding boundary (55, 56, 63, 64 bytes) */
  static const struct {
    size_t len;
    const char *digest;
  } as[] = {
    {55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
    {56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
    {63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
    {64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
  };
  char a64[64];
  memset(a64, 'a', sizeof(a64));
  for(size_t i = 0; i < BP_ARRAY_LEN(as); i++)
    check_vector(a64, as[i].len, as[i].digest);
}

/* sha256sum's digest of path into hex; false when it cannot run. */
static bool sha256sum(const char *path, char hex[2 * BP_SHA256_LEN + 1])
{
  char cmd[600];
  if(strchr(path, '\'') ||
     (size_t)snprintf(cmd, sizeof(cmd), "sha256sum '%s'", path) >= sizeof(cmd))
    return false;
  FILE *p = popen(cmd, "r");
  if(!p)
    return false;
  bool ok = fscanf(p, "%64s", hex) == 1;
  return pclose(p) == 0 && ok && strlen(hex) == 64;
}

static void test_file(void)
{
  const char *tmp = getenv("TMPDIR");
  char path[512];
  char mine[2 * BP_SHA256_LEN + 1], theirs[2 * BP_SHA256_LEN + 1];
  struct bp_err err = {.code = BP_OK};
  snprintf(path, sizeof(path), "%s/bp-sha256-XXXXXX",
           tmp && *tmp ? tmp : "/tmp");
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if(fd < 0)
    return;
  /* sizes: empty, under a block, and past several 16 KiB reads with an
   * odd tail; pseudo-random bytes including NULs */
  static const size_t sizes[] = {0, 1, 63, 64, 16384, 16385, 200003};
  unsigned char *data = malloc(200003);
  uint32_t x = 12345;
  for(size_t i = 0; data && i < 200003; i++) {
    x = x * 1103515245 + 12345;
    data[i] = (unsigned char)(x >> 16);
  }
  for(size_t k = 0; data && k < BP_ARRAY_LEN(sizes); k++) {
    CHECK(ftruncate(fd, 0) == 0 && lseek(fd, 0, SEEK_SET) == 0);
    CHECK(write(fd, data, sizes[k]) == (ssize_t)sizes[k]);
    CHECK_EQ_INT(bpi_sha256_file(path, mine, &err), BP_OK);
    CHECK(sha256sum(path, theirs));
    CHECK_EQ_STR(mine, theirs);
    unsigned char d[BP_SHA256_LEN];
    char hex[2 * BP_SHA256_LEN + 1];
    bpi_sha256(data, sizes[k], d);
    hex_of(d, hex);
    CHECK_EQ_STR(hex, mine);
  }
  free(data);
  close(fd);
  unlink(path);

  /* a missing file: BPE_IO naming it, hex untouched */
  snprintf(mine, sizeof(mine), "unchanged");
  CHECK_EQ_INT(bpi_sha256_file(path, mine, &err), BPE_IO);
  CHECK_EQ_INT(err.sys_errno, ENOENT);
  CHECK(strstr(err.msg, path) != NULL);
  CHECK_EQ_STR(mine, "unchanged");
  /* a directory opens but cannot be read */
  struct bp_err err2 = {.code = BP_OK};
  CHECK_EQ_INT(bpi_sha256_file("/", mine, &err2), BPE_IO);
  CHECK_EQ_INT(err2.sys_errno, EISDIR);
  CHECK_EQ_STR(mine, "unchanged");
}

int main(void)
{
  test_vectors();
  test_file();
  return check_exit();
}

/* test_text: the shared codecs (text.h): percent-encoding with and
 * without kept bytes, strict and lenient decoding, hex digits, UTF-8
 * validation, ISO 8601 times through libc's calendar. */
#include "bp_setup.h"
#include "text.h"
#include "buf.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

static void check_encode(const char *s, const char *keep, const char *want)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_text_pct_encode(&b, s, keep);
  bpi_buf_addc(&b, '\0');
  CHECK_EQ_STR(b.data, want);
  bpi_buf_cleanup(&b);
}

static void check_decode(const char *s, bool strict, bool ok,
                         const char *want)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  CHECK(bpi_text_pct_decode(&b, s, strlen(s), strict) == ok);
  bpi_buf_addc(&b, '\0');
  if(ok)
    CHECK_EQ_STR(b.data, want);
  bpi_buf_cleanup(&b);
}

int main(void)
{
  check_encode("a-z_0.9~", NULL, "a-z_0.9~");
  check_encode("a/b c", NULL, "a%2Fb%20c");
  check_encode("a/b c", "/", "a/b%20c");
  check_encode("caf\xc3\xa9%", "", "caf%C3%A9%25");
  check_decode("a%2Fb%20c", true, true, "a/b c");
  check_decode("100%", true, false, NULL);
  check_decode("100%", false, true, "100%");
  check_decode("%zz%41", false, true, "%zzA");
  CHECK_EQ_INT(bpi_text_hex_value('f'), 15);
  CHECK_EQ_INT(bpi_text_hex_value('F'), 15);
  CHECK_EQ_INT(bpi_text_hex_value('g'), -1);
  CHECK(bpi_text_utf8_valid("caf\xc3\xa9 \xe2\x98\x83"));
  CHECK(!bpi_text_utf8_valid("\xff"));
  CHECK(!bpi_text_utf8_valid("\xc0\xaf"));        /* overlong '/' */
  CHECK(!bpi_text_utf8_valid("\xed\xa0\x80"));    /* a surrogate */
  int64_t ms = 42;
  CHECK(bpi_text_iso8601_ms("2000-03-01T00:00:00.5+01:00", &ms));
  CHECK_EQ_INT(ms, INT64_C(951865200500));
  CHECK(bpi_text_iso8601_ms("1900-01-01T00:00:00Z", &ms));
  CHECK_EQ_INT(ms, INT64_C(-2208988800000));
  ms = 42;
  CHECK(!bpi_text_iso8601_ms("2000-03-01T00:00:00+01", &ms) && ms == 42);
  return check_exit();
}

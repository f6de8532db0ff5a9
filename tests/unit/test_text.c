/* test_text: the shared codecs (text.h): percent-encoding with and
 * without kept bytes, strict and lenient decoding, hex digits, UTF-8
 * validation, ISO 8601 times through libc's calendar, strict numbers and
 * their ranges, the edit distance, a path joined, the call-graph
 * option's grammar and its messages. */
#include "bp_setup.h"
#include "text.h"
#include "buf.h"
#include "check.h"

#include <float.h>
#include <stdint.h>
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

static bool u64_is(const char *s, uint64_t min, uint64_t max, uint64_t want)
{
  uint64_t v = 7;
  return bpi_text_u64(s, min, max, &v) && v == want;
}

static bool u64_refused(const char *s, uint64_t min, uint64_t max)
{
  uint64_t v = 7;
  return !bpi_text_u64(s, min, max, &v) && v == 7;
}

static void test_u64(void)
{
  CHECK(u64_is("42", 0, 100, 42));
  CHECK(u64_is("0", 0, 0, 0));
  CHECK(u64_is("007", 1, 7, 7));
  CHECK(u64_is("18446744073709551615", 0, UINT64_MAX, UINT64_MAX));
  CHECK(u64_refused("18446744073709551616", 0, UINT64_MAX)); /* overflow */
  CHECK(u64_refused("101", 0, 100));
  CHECK(u64_refused("0", 1, 100));
  CHECK(u64_refused("", 0, 100));
  CHECK(u64_refused(NULL, 0, 100));
  CHECK(u64_refused(" 4", 0, 100));
  CHECK(u64_refused("4 ", 0, 100));
  CHECK(u64_refused("+4", 0, 100));
  CHECK(u64_refused("-1", 0, 100));
  CHECK(u64_refused("0x10", 0, 100));
  CHECK(u64_refused("1e2", 0, 1000));
}

static bool number_is(const char *s, double min, double max, double want)
{
  double v = 7;
  return bpi_text_number(s, min, max, &v) && v == want;
}

static bool number_refused(const char *s, double min, double max)
{
  double v = 7;
  return !bpi_text_number(s, min, max, &v) && v == 7;
}

static void test_number(void)
{
  CHECK(number_is("1.5", 0, 10, 1.5));
  CHECK(number_is("1e3", 0, 1e6, 1000));
  CHECK(number_is("-2", -5, 5, -2));
  CHECK(number_is(".5", 0, 1, 0.5));
  CHECK(number_is("86400", BP_TEXT_ABOVE_ZERO, 86400, 86400));
  CHECK(number_refused("0", BP_TEXT_ABOVE_ZERO, 86400));
  CHECK(number_refused("86400.5", BP_TEXT_ABOVE_ZERO, 86400));
  CHECK(number_refused("-2", 0, 5));
  CHECK(number_refused(" 1", 0, 10));
  CHECK(number_refused("1 ", 0, 10));
  CHECK(number_refused("0x10", 0, 100));
  CHECK(number_refused("inf", -DBL_MAX, DBL_MAX));
  CHECK(number_refused("nan", -DBL_MAX, DBL_MAX));
  CHECK(number_refused("1e999", -DBL_MAX, DBL_MAX));
  CHECK(number_refused(".", -DBL_MAX, DBL_MAX));
  CHECK(number_refused("1e", -DBL_MAX, DBL_MAX));
  CHECK(number_refused("", -DBL_MAX, DBL_MAX));
}

static size_t dist(const char *a, const char *b, bool nocase)
{
  return bpi_text_edit_distance(a, strlen(a), b, strlen(b), nocase);
}

static void test_edit_distance(void)
{
  char longer[BP_TEXT_EDIT_MAX + 2];
  memset(longer, 'a', sizeof(longer) - 1);
  longer[sizeof(longer) - 1] = '\0';
  CHECK_EQ_INT(dist("kitten", "sitting", false), 3);
  CHECK_EQ_INT(dist("", "abc", false), 3);
  CHECK_EQ_INT(dist("frequency", "frequency", false), 0);
  CHECK_EQ_INT(dist("frequncy", "frequency", false), 1);
  CHECK_EQ_INT(dist("Cycles", "cycles", false), 1);
  CHECK_EQ_INT(dist("Cycles", "cycles", true), 0);
  CHECK(dist(longer, "a", false) == SIZE_MAX);
  CHECK_EQ_INT(dist(longer + 1, longer + 2, false), 1);  /* at the limit */
}

static void test_path_join(void)
{
  char *p = bpi_text_path_join("out", "report.json");
  CHECK_EQ_STR(p, "out/report.json");
  free(p);
  p = bpi_text_path_join("", "x");
  CHECK_EQ_STR(p, "/x");
  free(p);
}

static bool call_graph_is(const char *s, enum bp_call_graph want,
                          uint32_t want_bytes)
{
  struct bp_err err = {0};
  enum bp_call_graph mode = BP_CALL_GRAPH_FP;
  uint32_t bytes = 99;
  return bpi_text_call_graph(s, 65528, &mode, &bytes, &err) == BP_OK &&
         mode == want && bytes == want_bytes;
}

/* Refused with a message that contains want. */
static bool call_graph_refused(const char *s, const char *want)
{
  struct bp_err err = {0};
  enum bp_call_graph mode = BP_CALL_GRAPH_FP;
  uint32_t bytes = 99;
  bp_code rc = bpi_text_call_graph(s, 65528, &mode, &bytes, &err);
  return rc == BPE_INVAL && strstr(err.msg, want) &&
         mode == BP_CALL_GRAPH_FP && bytes == 99;
}

static void test_call_graph(void)
{
  CHECK(call_graph_is("fp", BP_CALL_GRAPH_FP, 0));
  CHECK(call_graph_is("auto", BP_CALL_GRAPH_AUTO, 0));
  CHECK(call_graph_is("lbr", BP_CALL_GRAPH_LBR, 0));
  CHECK(call_graph_is("dwarf", BP_CALL_GRAPH_DWARF, 0));
  CHECK(call_graph_is("dwarf,16384", BP_CALL_GRAPH_DWARF, 16384));
  CHECK(call_graph_is("dwarf,8", BP_CALL_GRAPH_DWARF, 8));
  CHECK(call_graph_is("dwarf,65528", BP_CALL_GRAPH_DWARF, 65528));
  CHECK(call_graph_refused("dwarf,65536", "stack size '65536' must be a "
                           "multiple of 8 from 8 to 65528 bytes"));
  CHECK(call_graph_refused("dwarf,12", "stack size '12'"));
  CHECK(call_graph_refused("dwarf,", "stack size ''"));
  CHECK(call_graph_refused("dwarf,+8", "stack size '+8'"));
  CHECK(call_graph_refused("dwarfs", "'dwarfs' is not fp, dwarf[,BYTES], "
                           "auto or lbr"));
  CHECK(call_graph_refused("FP", "'FP' is not"));
  CHECK(call_graph_refused("", "'' is not"));
}

int main(void)
{
  test_u64();
  test_number();
  test_edit_distance();
  test_path_join();
  test_call_graph();
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

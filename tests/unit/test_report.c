/* The report: BMF parsing with its error messages, Google Benchmark
 * conversion, counters, merging, writing and reading back, and (outside
 * sanitizer builds) every allocation failing in turn without a leak. */
#include "bp_setup.h"
#include "report.h"
#include "err.h"
#include "check.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------ allocation faults */

/* With glibc and no sanitizer the test replaces malloc (glibc supports
 * that) to count live blocks and to fail the Nth allocation. */
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
#define TORTURE 1
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);

static long fail_in = -1;   /* allocations until one fails; -1: never */
static bool failed_one;
static long live;           /* blocks allocated and not freed */

static bool inject(void)
{
  if(fail_in < 0)
    return false;
  if(fail_in-- == 0) {
    failed_one = true;
    return true;
  }
  return false;
}

void *malloc(size_t n)
{
  void *p = inject() ? NULL : __libc_malloc(n);
  live += p != NULL;
  return p;
}

void *calloc(size_t n, size_t size)
{
  void *p = inject() ? NULL : __libc_calloc(n, size);
  live += p != NULL;
  return p;
}

void *realloc(void *p, size_t n)
{
  if(!p)
    return malloc(n);
  if(inject())
    return NULL;
  void *q = __libc_realloc(p, n);
  if(!q && !n)
    live--;
  return q;
}

void free(void *p)
{
  live -= p != NULL;
  __libc_free(p);
}
#endif

/* ---------------------------------------------------------------- helpers */

typedef bp_code (*parse_fn)(struct bp_report *, const char *, size_t,
                            const char *, struct bp_err *);

static bool valid_utf8(const char *s)
{
  const unsigned char *p = (const unsigned char *)s;
  while(*p) {
    size_t n;
    uint32_t cp;
    if(*p < 0x80) {
      p++;
      continue;
    }
    if(*p >= 0xc2 && *p <= 0xdf) {
      n = 2;
      cp = *p & 0x1f;
    }
    else if(*p >= 0xe0 && *p <= 0xef) {
      n = 3;
      cp = *p & 0x0f;
    }
    else if(*p >= 0xf0 && *p <= 0xf4) {
      n = 4;
      cp = *p & 0x07;
    }
    else
      return false;
    for(size_t i = 1; i < n; i++) {
      if((p[i] & 0xc0) != 0x80)
        return false;
      cp = (cp << 6) | (p[i] & 0x3f);
    }
    if((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
       (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
      return false;
    p += n;
  }
  return true;
}

/* A message is one line of valid UTF-8 without control characters. */
static bool clean_message(const char *s)
{
  for(const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if(*p < 0x20 || *p == 0x7f)
      return false;
  }
  return valid_utf8(s);
}

/* Parse json, expect BPE_FORMAT, a clean message containing want, and
 * nothing added to a report. */
#define EXPECT_ERROR(fn, json, want) \
  expect_error(__LINE__, fn, json, strlen(json), want)

static void expect_error(int line, parse_fn fn, const char *json, size_t len,
                         const char *want)
{
  struct bp_report r;
  struct bp_err err = {.code = BP_OK};
  bpi_report_init(&r);
  bp_code rc = fn(&r, json, len, "bench.json", &err);
  check_count += 4;
  if(rc != BPE_FORMAT || err.code != BPE_FORMAT || !strstr(err.msg, want) ||
     r.nbenches) {
    check_failures++;
    fprintf(stderr, "%s:%d: expected BPE_FORMAT with '%s', got %d '%s'\n",
            __FILE__, line, want, rc, err.msg);
  }
  if(!clean_message(err.msg)) {
    check_failures++;
    fprintf(stderr, "%s:%d: message not one clean line: %s\n", __FILE__,
            line, err.msg);
  }
  bpi_report_cleanup(&r);
}

static bp_code parse(parse_fn fn, struct bp_report *r, const char *json,
                     struct bp_err *err)
{
  bpi_err_clear(err);
  return fn(r, json, strlen(json), "bench.json", err);
}

static const struct bp_measure *measure(const struct bp_report *r,
                                        const char *bench, const char *slug)
{
  for(size_t i = 0; i < r->nbenches; i++) {
    if(strcmp(r->benches[i].name, bench))
      continue;
    for(size_t k = 0; k < r->benches[i].nmeasures; k++) {
      if(!strcmp(r->benches[i].measures[k].slug, slug))
        return &r->benches[i].measures[k];
    }
  }
  return NULL;
}

/* The report's BMF as a string the caller frees. */
static char *written(const struct bp_report *r)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_report_write_bmf(r, &b);
  if(bpi_buf_failed(&b)) {
    bpi_buf_cleanup(&b);
    return NULL;
  }
  return b.data;
}

/* Same benchmarks, measures, order and bit-identical numbers. */
static bool same_report(const struct bp_report *a, const struct bp_report *b)
{
  if(a->nbenches != b->nbenches)
    return false;
  for(size_t i = 0; i < a->nbenches; i++) {
    const struct bp_bench *x = &a->benches[i], *y = &b->benches[i];
    if(strcmp(x->name, y->name) || x->nmeasures != y->nmeasures)
      return false;
    for(size_t k = 0; k < x->nmeasures; k++) {
      const struct bp_measure *m = &x->measures[k], *n = &y->measures[k];
      if(strcmp(m->slug, n->slug) || memcmp(&m->value, &n->value, 8) ||
         m->has_lower != n->has_lower || m->has_upper != n->has_upper ||
         (m->has_lower && memcmp(&m->lower, &n->lower, 8)) ||
         (m->has_upper && memcmp(&m->upper, &n->upper, 8)))
        return false;
    }
  }
  return true;
}

/* ------------------------------------------------------------------- BMF */

static void test_bmf_valid(void)
{
  struct bp_report r;
  struct bp_err err = {.code = BP_OK};
  bpi_report_init(&r);
  CHECK_EQ_INT(parse(bpi_report_parse_bmf, &r,
                     "{\"zeta\": {\"latency\": {\"value\": 1.5, "
                     "\"lower_value\": 1, \"upper_value\": 2},\n"
                     " \"throughput\": {\"value\": 100}},\n"
                     " \"alpha\": {\"latency\": {\"upper_value\": 3.5, "
                     "\"value\": 3.5, \"lower_value\": 3.5}},\n"
                     " \"big\": {\"m\": {\"value\": 1e308, "
                     "\"lower_value\": -1.7976931348623157e308}},\n"
                     " \"none\": {}}", &err), BP_OK);
  CHECK_EQ_INT(r.nbenches, 4);
  if(r.nbenches == 4) {
    /* document order, not sorted */
    CHECK_EQ_STR(r.benches[0].name, "zeta");
    CHECK_EQ_STR(r.benches[1].name, "alpha");
    CHECK_EQ_INT(r.benches[0].nmeasures, 2);
    CHECK_EQ_STR(r.benches[0].measures[0].slug, "latency");
    CHECK_EQ_STR(r.benches[0].measures[1].slug, "throughput");
    CHECK_EQ_INT(r.benches[3].nmeasures, 0);
  }
  const struct bp_measure *m = measure(&r, "zeta", "latency");
  CHECK(m && m->value == 1.5 && m->has_lower && m->lower == 1 &&
        m->has_upper && m->upper == 2);
  m = measure(&r, "zeta", "throughput");
  CHECK(m && m->value == 100 && !m->has_lower && !m->has_upper);
  m = measure(&r, "alpha", "latency");
  CHECK(m && m->lower == 3.5 && m->value == 3.5 && m->upper == 3.5);
  m = measure(&r, "big", "m");
  CHECK(m && m->value == 1e308 && m->lower == -1.7976931348623157e308);
  bpi_report_cleanup(&r);

  /* empty document, BOM, whitespace */
  CHECK_EQ_INT(parse(bpi_report_parse_bmf, &r, " \n{}\n ", &err), BP_OK);
  CHECK_EQ_INT(r.nbenches, 0);
  CHECK_EQ_INT(parse(bpi_report_parse_bmf, &r, "\xef\xbb\xbf{}", &err),
               BP_OK);
  /* NULL origin */
  CHECK_EQ_INT(bpi_report_parse_bmf(&r, "[]", 2, NULL, &err), BPE_FORMAT);
  CHECK(strstr(err.msg, "input: at the top level") != NULL);
  bpi_report_cleanup(&r);
}

static void test_bmf_invalid_json(void)
{
  parse_fn f = bpi_report_parse_bmf;
  EXPECT_ERROR(f, "", "bench.json:1:1: invalid JSON: unexpected end");
  EXPECT_ERROR(f, "   \n  ", "bench.json:2:3: invalid JSON: unexpected end");
  EXPECT_ERROR(f, "{\"a\":", "bench.json:1:6: invalid JSON: unexpected end");
  EXPECT_ERROR(f, "{\"sort\": {\"latency\": {\"value\": 1",
               "bench.json:1:33: invalid JSON: unexpected end");
  EXPECT_ERROR(f, "{\n  \"a\": {\n    \"m\": {\"value\": tru}\n  }\n}",
               "bench.json:3:20: invalid JSON");
  EXPECT_ERROR(f, "{} x", "bench.json:1:4: invalid JSON");
  EXPECT_ERROR(f, "{\"a\": {}}}", "bench.json:1:10: invalid JSON");
  EXPECT_ERROR(f, "{\"a\": NaN}", "bench.json:1:7: invalid JSON");
  /* columns count characters: "été" is 3 */
  EXPECT_ERROR(f, "{\"\xc3\xa9t\xc3\xa9\": x}",
               "bench.json:1:9: invalid JSON");
  EXPECT_ERROR(f, "{\"a\\u0000b\": {}}", "1:4: invalid JSON: \\u0000");
  /* an escaped backslash followed by u0000 is an ordinary string */
  struct bp_report r;
  struct bp_err err = {.code = BP_OK};
  bpi_report_init(&r);
  CHECK_EQ_INT(parse(f, &r, "{\"a\\\\u0000\": {}}", &err), BP_OK);
  CHECK(r.nbenches == 1 && !strcmp(r.benches[0].name, "a\\u0000"));
  bpi_report_cleanup(&r);
  /* a NUL byte inside the given length */
  expect_error(__LINE__, f, "{\"a\": {}}\0{}", 11,
               "1:10: invalid JSON: a NUL");
  /* the length is honoured: what follows it is not read */
  CHECK_EQ_INT(bpi_report_parse_bmf(&r, "{}garbage", 2, "x", &err), BP_OK);
  /* deep nesting is cJSON's limit, not a crash */
  char deep[3000];
  memset(deep, '[', sizeof(deep) - 1);
  deep[sizeof(deep) - 1] = '\0';
  EXPECT_ERROR(f, deep, "invalid JSON");
}

static void test_bmf_errors(void)
{
  parse_fn f = bpi_report_parse_bmf;
  struct bp_report r;
  struct bp_err err = {.code = BP_OK};

  /* the message of the brief, exactly */
  bpi_report_init(&r);
  CHECK_EQ_INT(parse(f, &r, "{\"sort\": {\"latency\": {\"value\": \"12\"}}}",
                     &err), BPE_FORMAT);
  CHECK_EQ_STR(err.msg, "bench.json: at [\"sort\"][\"latency\"][\"value\"]: "
               "expected a number, got a string");
  bpi_report_cleanup(&r);

  EXPECT_ERROR(f, "[1, 2]", "bench.json: at the top level: expected an "
               "object of benchmarks, got an array");
  EXPECT_ERROR(f, "42", "at the top level: expected an object of "
               "benchmarks, got a number");
  EXPECT_ERROR(f, "{\"sort\": 5}", "at [\"sort\"]: expected an object of "
               "measures, got a number");
  EXPECT_ERROR(f, "{\"sort\": [{\"value\": 1}]}", "at [\"sort\"]: expected "
               "an object of measures, got an array");
  EXPECT_ERROR(f, "{\"sort\": {\"latency\": \"fast\"}}",
               "at [\"sort\"][\"latency\"]: expected an object with "
               "\"value\", got a string");
  EXPECT_ERROR(f, "{\"sort\": {\"latency\": 12}}",
               "at [\"sort\"][\"latency\"]: expected an object");
  EXPECT_ERROR(f, "{\"sort\": {\"latency\": {\"lower_value\": 1}}}",
               "at [\"sort\"][\"latency\"]: missing \"value\"");
  EXPECT_ERROR(f, "{\"sort\": {\"latency\": {}}}",
               "at [\"sort\"][\"latency\"]: missing \"value\"");
  EXPECT_ERROR(f, "{\"s\": {\"l\": {\"value\": null}}}",
               "at [\"s\"][\"l\"][\"value\"]: expected a number, got null");
  EXPECT_ERROR(f, "{\"s\": {\"l\": {\"value\": true}}}",
               "[\"value\"]: expected a number, got a boolean");
  EXPECT_ERROR(f, "{\"s\": {\"l\": {\"value\": [1]}}}",
               "[\"value\"]: expected a number, got an array");
  EXPECT_ERROR(f, "{\"s\": {\"l\": {\"value\": 1, \"lower_value\": \"0\"}}}",
               "at [\"s\"][\"l\"][\"lower_value\"]: expected a number, got "
               "a string");
  EXPECT_ERROR(f, "{\"s\": {\"l\": {\"value\": 1, \"upper_value\": {}}}}",
               "at [\"s\"][\"l\"][\"upper_value\"]: expected a number, got "
               "an object");
  /* numbers beyond double: 1e999 reads as infinity */
  EXPECT_ERROR(f, "{\"s\": {\"l\": {\"value\": 1e999}}}",
               "at [\"s\"][\"l\"][\"value\"]: number out of range");
  EXPECT_ERROR(f, "{\"s\": {\"l\": {\"value\": 1, \"lower_value\": -1e999}}}",
               "at [\"s\"][\"l\"][\"lower_value\"]: number out of range");
  EXPECT_ERROR(f, "{\"s\": {\"l\": {\"value\": 1, \"upper_value\": 2e400}}}",
               "[\"upper_value\"]: number out of range");
  EXPECT_ERROR(f, "{\"s\": {\"l\": {\"value\": 1, \"units\": \"ns\"}}}",
               "at [\"s\"][\"l\"]: unknown key \"units\"");
  EXPECT_ERROR(f, "{\"s\": {\"l\": {\"Value\": 1}}}",
               "at [\"s\"][\"l\"]: unknown key \"Value\"");
  EXPECT_ERROR(f, "{\"s\": {\"l\": {\"value\": 3, \"lower_value\": 5}}}",
               "at [\"s\"][\"l\"]: lower_value 5 is greater than value 3");
  EXPECT_ERROR(f, "{\"s\": {\"l\": {\"value\": 3, \"upper_value\": 2.5}}}",
               "at [\"s\"][\"l\"]: value 3 is greater than upper_value 2.5");
  EXPECT_ERROR(f, "{\"s\": {\"l\": {\"value\": 0.30000000000000004, "
               "\"upper_value\": 0.3}}}",
               "value 0.30000000000000004 is greater than upper_value 0.3");
  EXPECT_ERROR(f, "{\"\": {\"l\": {\"value\": 1}}}",
               "at [\"\"]: empty benchmark name");
  EXPECT_ERROR(f, "{\"s\": {\"\": {\"value\": 1}}}",
               "at [\"s\"][\"\"]: empty measure name");
  /* duplicate keys, which cJSON keeps both of */
  EXPECT_ERROR(f, "{\"a\": {}, \"b\": {}, \"a\": {}}",
               "at the top level: duplicate benchmark \"a\"");
  EXPECT_ERROR(f, "{\"b\": {}, \"a\": {}, \"b\": {}, \"a\": {}}",
               "duplicate benchmark \"b\"");
  EXPECT_ERROR(f, "{\"a\": {\"l\": {\"value\": 1}, \"m\": {\"value\": 1}, "
               "\"l\": {\"value\": 2}}}",
               "at [\"a\"]: duplicate measure \"l\"");
  EXPECT_ERROR(f, "{\"a\": {\"l\": {\"value\": 1, \"value\": 2}}}",
               "at [\"a\"][\"l\"]: duplicate key \"value\"");
  /* names that only differ in invalid bytes are the same once stored */
  EXPECT_ERROR(f, "{\"a\xff\": {}, \"a\xfe\": {}}",
               "duplicate benchmark \"a\xef\xbf\xbd\"");
  /* many benchmarks, duplicate at the end */
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_buf_adds(&b, "{");
  for(int i = 0; i < 3000; i++)
    bpi_buf_printf(&b, "\"bench%d\": {\"latency\": {\"value\": %d}},", i, i);
  bpi_buf_adds(&b, "\"bench1234\": {}}");
  EXPECT_ERROR(f, b.data, "duplicate benchmark \"bench1234\"");
  bpi_buf_cleanup(&b);
}

/* Names are shown escaped and short in messages, never raw. */
static void test_bmf_hostile_messages(void)
{
  parse_fn f = bpi_report_parse_bmf;
  struct bp_report r;
  struct bp_err err = {.code = BP_OK};
  bpi_report_init(&r);
  /* quote, newline (escaped in JSON and raw), control, ESC, invalid byte,
   * right-to-left override, path traversal */
  CHECK_EQ_INT(parse(f, &r, "{\"a\\\"b\\nc\x01\x1b[31m\xff\xe2\x80\xae../x\n"
                     "y\": {\"m\": {\"value\": \"1\"}}}", &err), BPE_FORMAT);
  CHECK_EQ_STR(err.msg, "bench.json: at [\"a\\\"b\\nc\\x01\\x1b[31m\\xff"
               "\\u202e../x\\ny\"][\"m\"][\"value\"]: expected a number, got "
               "a string");
  CHECK(clean_message(err.msg));
  /* a long name is cut, the rest of the message stays */
  char json[4200];
  memcpy(json, "{\"", 2);
  memset(json + 2, 'x', 4000);
  snprintf(json + 4002, sizeof(json) - 4002, "\": 7}");
  CHECK_EQ_INT(parse(f, &r, json, &err), BPE_FORMAT);
  CHECK(strstr(err.msg, "xxx...\"]: expected an object of measures, got a "
               "number") != NULL);
  CHECK(strlen(err.msg) < 200);
  /* unknown keys are shown the same way */
  CHECK_EQ_INT(parse(f, &r, "{\"s\": {\"l\": {\"value\": 1, \"\\u001b]0;"
                     "pwned\\u0007\": 1}}}", &err), BPE_FORMAT);
  CHECK_EQ_STR(err.msg, "bench.json: at [\"s\"][\"l\"]: unknown key "
               "\"\\x1b]0;pwned\\x07\" (a measure has value, lower_value and "
               "upper_value)");
  /* and so is the origin */
  bpi_err_clear(&err);
  CHECK_EQ_INT(bpi_report_parse_bmf(&r, "[", 1, "out\n.json", &err),
               BPE_FORMAT);
  CHECK_EQ_STR(err.msg, "out\\n.json:1:2: invalid JSON: unexpected end of "
               "input");
  CHECK_EQ_INT(r.nbenches, 0);
  bpi_report_cleanup(&r);
}

/* ------------------------------------------------------------- writing */

static void test_write(void)
{
  struct bp_report r;
  bpi_report_init(&r);
  char *out = written(&r);
  CHECK_EQ_STR(out, "{}\n");
  free(out);

  struct bp_bench *b = bpi_report_bench(&r, "sort");
  CHECK(b != NULL);
  CHECK_EQ_INT(bpi_report_add_measure(b, "latency", 1.5), BP_OK);
  b->measures[0].has_lower = b->measures[0].has_upper = true;
  b->measures[0].lower = 1;
  b->measures[0].upper = 2;
  CHECK_EQ_INT(bpi_report_add_measure(b, "instructions", 123456789), BP_OK);
  CHECK(bpi_report_bench(&r, "empty") != NULL);
  b = bpi_report_bench(&r, "sort");
  CHECK(b == &r.benches[0]);
  CHECK_EQ_INT(r.nbenches, 2);
  out = written(&r);
  CHECK_EQ_STR(out,
               "{\n"
               "  \"sort\": {\n"
               "    \"latency\": {\n"
               "      \"value\": 1.5,\n"
               "      \"lower_value\": 1,\n"
               "      \"upper_value\": 2\n"
               "    },\n"
               "    \"instructions\": {\n"
               "      \"value\": 123456789\n"
               "    }\n"
               "  },\n"
               "  \"empty\": {}\n"
               "}\n");
  free(out);
  bpi_report_cleanup(&r);
}

/* Numbers and names survive write -> parse bit for bit (names after
 * invalid bytes became U+FFFD), and the output is valid UTF-8 with every
 * control character escaped. */
static void test_round_trip(void)
{
  static const char *const names[] = {
    "plain", "with \"quotes\" and \\backslash\\", "new\nline\ttab\rcr",
    "../../etc/passwd", "</script><script>alert(1)</script>",
    "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80",
    "bad \xff\xfe utf8 \xc3", "overlong \xc0\xaf and surrogate \xed\xa0\x80",
    "ctl \x01\x1f\x7f", "BM_sort/1024/threads:8", " ",
  };
  static const double values[] = {
    0, 1, -1, 0.1, 1.0 / 3, 2.0 / 3, 1e-300, 5e-324, 2.2250738585072014e-308,
    1.7976931348623157e308, -1.7976931348623157e308, 9007199254740991.0,
    9007199254740992.0, 9007199254740993.0, 123456789012345678.0,
    1e21, 1e22, 3.14159265358979312, 100, 1e15, 1e16, 123.456,
  };
  struct bp_report a, c;
  struct bp_err err = {.code = BP_OK};
  bpi_report_init(&a);
  bpi_report_init(&c);
  for(size_t i = 0; i < BP_ARRAY_LEN(names); i++) {
    struct bp_bench *b = bpi_report_bench(&a, names[i]);
    CHECK(b != NULL);
    if(!b)
      continue;
    for(size_t k = 0; k < BP_ARRAY_LEN(values); k++) {
      char slug[32];
      snprintf(slug, sizeof(slug), "m%zu", k);
      double v = values[(k + i) % BP_ARRAY_LEN(values)];
      CHECK_EQ_INT(bpi_report_add_measure(b, slug, v), BP_OK);
      if(k % 3 == 0) {
        struct bp_measure *m = &b->measures[b->nmeasures - 1];
        m->has_lower = m->has_upper = true;
        m->lower = isfinite(v - fabs(v) / 3) ? v - fabs(v) / 3 : v;
        m->upper = v;
      }
    }
    CHECK_EQ_INT(bpi_report_add_measure(b, names[i], 42), BP_OK);
  }
  /* stored names are valid UTF-8 */
  for(size_t i = 0; i < a.nbenches; i++)
    CHECK(valid_utf8(a.benches[i].name));
  CHECK_EQ_STR(a.benches[6].name, "bad \xef\xbf\xbd\xef\xbf\xbd utf8 "
               "\xef\xbf\xbd");
  char *out = written(&a);
  CHECK(out != NULL);
  if(!out)
    return;
  CHECK(valid_utf8(out));
  bool raw_ctl = false;
  for(const char *p = out; *p; p++)
    raw_ctl |= (unsigned char)*p < 0x20 && *p != '\n';
  CHECK(!raw_ctl);
  CHECK(strstr(out, "\"new\\nline\\ttab\\rcr\"") != NULL);
  CHECK(strstr(out, "\"with \\\"quotes\\\" and \\\\backslash\\\\\"") != NULL);
  CHECK(strstr(out, "\\u003c/script>") != NULL);
  CHECK(strstr(out, "\"value\": 9007199254740991,") != NULL);
  CHECK(strstr(out, "\"value\": 0.1") != NULL);
  CHECK(strstr(out, "inf") == NULL && strstr(out, "nan") == NULL);
  CHECK_EQ_INT(bpi_report_parse_bmf(&c, out, strlen(out), "written", &err),
               BP_OK);
  CHECK(same_report(&a, &c));
  /* and once more: the second writing is the same text */
  char *again = written(&c);
  CHECK_EQ_STR(again, out);
  free(again);
  free(out);
  bpi_report_cleanup(&a);
  bpi_report_cleanup(&c);
}

/* ----------------------------------------------------- measures, counters */

static void test_measures_and_counters(void)
{
  struct bp_report r;
  struct bp_err err = {.code = BP_OK};
  bpi_report_init(&r);
  CHECK(bpi_report_bench(&r, "") == NULL);
  CHECK(bpi_report_bench(&r, NULL) == NULL);
  CHECK(bpi_report_bench(NULL, "x") == NULL);
  CHECK_EQ_INT(parse(bpi_report_parse_bmf, &r,
                     "{\"sort\": {\"instructions\": {\"value\": 7}, "
                     "\"latency\": {\"value\": 5}}}", &err), BP_OK);
  struct bp_bench *b = bpi_report_bench(&r, "sort");
  CHECK_EQ_INT(bpi_report_add_measure(b, "latency", 99), BP_OK);
  CHECK_EQ_INT(bpi_report_add_measure(b, "", 1), BPE_INVAL);
  CHECK_EQ_INT(bpi_report_add_measure(b, "x", NAN), BPE_INVAL);
  CHECK_EQ_INT(bpi_report_add_measure(b, "x", INFINITY), BPE_INVAL);
  CHECK_EQ_INT(bpi_report_add_measure(NULL, "x", 1), BPE_INVAL);
  CHECK_EQ_INT(bpi_report_add_measure(b, NULL, 1), BPE_INVAL);

  struct bp_counter c[5];
  memset(c, 0, sizeof(c));
  c[0] = (struct bp_counter){.name = "instructions", .slug = "instructions",
                             .unit = "instructions", .available = true,
                             .raw = 1000, .value = 1000, .running = 1};
  c[1] = (struct bp_counter){.name = "cycles", .slug = "cycles",
                             .unit = "cycles", .available = false};
  snprintf(c[1].reason, sizeof(c[1].reason), "no PMU");
  c[2] = (struct bp_counter){.name = "task-clock", .slug = "task-clock",
                             .unit = "ns", .available = true,
                             .raw = 2500000, .value = 2500000.5,
                             .running = 1};
  c[3] = (struct bp_counter){.name = "branch-misses",
                             .slug = "branch-misses", .unit = "events",
                             .available = true, .value = NAN};
  c[4] = (struct bp_counter){.name = "cache-misses", .slug = "cache-misses",
                             .unit = "events", .available = true,
                             .raw = 10, .value = 20.5, .running = 0.5};
  CHECK_EQ_INT(bpi_report_add_counters(b, c, 5), BP_OK);
  CHECK_EQ_INT(bpi_report_add_counters(b, NULL, 0), BP_OK);
  CHECK_EQ_INT(b->nmeasures, 4);
  if(b->nmeasures == 4) {
    CHECK_EQ_STR(b->measures[0].slug, "instructions");
    CHECK(b->measures[0].value == 7);          /* the harness wins */
    CHECK_EQ_STR(b->measures[1].slug, "latency");
    CHECK(b->measures[1].value == 5);
    CHECK_EQ_STR(b->measures[2].slug, "task-clock");
    CHECK(b->measures[2].value == 2500000.5);
    CHECK_EQ_STR(b->measures[3].slug, "cache-misses");
    CHECK(b->measures[3].value == 20.5);
  }
  CHECK(measure(&r, "sort", "cycles") == NULL);
  CHECK(measure(&r, "sort", "branch-misses") == NULL);
  bpi_report_cleanup(&r);
}

/* A parse adds to a report: its measures replace those the report had for
 * the same benchmark; a failed parse changes nothing. */
static void test_merge(void)
{
  struct bp_report r;
  struct bp_err err = {.code = BP_OK};
  bpi_report_init(&r);
  struct bp_bench *b = bpi_report_bench(&r, "sort");
  bpi_report_add_measure(b, "instructions", 11);
  bpi_report_add_measure(b, "latency", 1);
  CHECK_EQ_INT(parse(bpi_report_parse_bmf, &r,
                     "{\"new\": {\"latency\": {\"value\": 2}}, "
                     "\"sort\": {\"latency\": {\"value\": 5, "
                     "\"lower_value\": 4}, \"throughput\": {\"value\": 9}}}",
                     &err), BP_OK);
  CHECK_EQ_INT(r.nbenches, 2);
  CHECK_EQ_STR(r.benches[0].name, "sort");
  CHECK_EQ_STR(r.benches[1].name, "new");
  CHECK_EQ_INT(r.benches[0].nmeasures, 3);
  const struct bp_measure *m = measure(&r, "sort", "latency");
  CHECK(m && m->value == 5 && m->has_lower && m->lower == 4);
  m = measure(&r, "sort", "instructions");
  CHECK(m && m->value == 11);
  m = measure(&r, "sort", "throughput");
  CHECK(m && m->value == 9);

  char *before = written(&r);
  /* valid first benchmark, broken second: nothing of it is added */
  CHECK_EQ_INT(parse(bpi_report_parse_bmf, &r,
                     "{\"third\": {\"latency\": {\"value\": 2}}, "
                     "\"sort\": {\"latency\": {\"value\": \"x\"}}}", &err),
               BPE_FORMAT);
  CHECK_EQ_INT(parse(bpi_report_parse_gbench, &r,
                     "{\"benchmarks\": [{\"name\": \"a\", \"run_type\": "
                     "\"iteration\", \"real_time\": 1, \"time_unit\": "
                     "\"ns\"}, {\"name\": \"sort\", \"run_type\": "
                     "\"iteration\", \"real_time\": \"x\", \"time_unit\": "
                     "\"ns\"}]}", &err), BPE_FORMAT);
  char *after = written(&r);
  CHECK_EQ_STR(after, before);
  free(before);
  free(after);
  bpi_report_cleanup(&r);

  CHECK_EQ_INT(bpi_report_parse_bmf(NULL, "{}", 2, "x", &err), BPE_INVAL);
  CHECK_EQ_INT(bpi_report_parse_gbench(&r, NULL, 3, "x", &err), BPE_INVAL);
}

/* ------------------------------------------------------ Google Benchmark */

#define GB_HEAD "{\n  \"context\": {\"date\": \"2024-01-01\", " \
  "\"num_cpus\": 8, \"caches\": [], \"load_avg\": [0.5, 1e-3], " \
  "\"library_build_type\": \"release\"},\n  \"benchmarks\": [\n"

/* An iteration row. */
#define GB_IT(name, run, t, unit) \
  "{\"name\": \"" name "\", \"family_index\": 0, \"run_name\": \"" run \
  "\", \"run_type\": \"iteration\", \"repetitions\": 1, \"threads\": 1, " \
  "\"iterations\": 1000, \"real_time\": " t ", \"cpu_time\": " t ", " \
  "\"time_unit\": \"" unit "\"}"

/* An aggregate row. */
#define GB_AGG(run, agg, aunit, t, unit) \
  "{\"name\": \"" run "_" agg "\", \"run_name\": \"" run "\", " \
  "\"run_type\": \"aggregate\", \"repetitions\": 3, \"threads\": 1, " \
  "\"aggregate_name\": \"" agg "\", \"aggregate_unit\": \"" aunit "\", " \
  "\"iterations\": 3, \"real_time\": " t ", \"cpu_time\": " t ", " \
  "\"time_unit\": \"" unit "\"}"

static void test_gbench(void)
{
  struct bp_report r;
  struct bp_err err = {.code = BP_OK};
  bpi_report_init(&r);
  CHECK_EQ_INT(parse(bpi_report_parse_gbench, &r, GB_HEAD
                     GB_IT("BM_ns", "BM_ns", "7.5", "ns") ",\n"
                     GB_IT("BM_us", "BM_us", "1.5", "us") ",\n"
                     GB_IT("BM_ms", "BM_ms", "2", "ms") ",\n"
                     GB_IT("BM_s", "BM_s", "0.25", "s") ",\n"
                     GB_IT("BM_rep/8", "BM_rep/8", "1.0e+01", "us") ",\n"
                     GB_IT("BM_rep/8", "BM_rep/8", "3.0e+01", "us") ",\n"
                     GB_IT("BM_rep/8", "BM_rep/8", "2.0e+01", "us") ",\n"
                     GB_AGG("BM_rep/8", "mean", "time", "20", "us") ",\n"
                     GB_AGG("BM_rep/8", "median", "time", "20", "us") ",\n"
                     GB_AGG("BM_rep/8", "stddev", "time", "10", "us") ",\n"
                     GB_AGG("BM_rep/8", "cv", "percentage", "0.5", "us")
                     ",\n"
                     "{\"name\": \"BM_old\", \"run_type\": \"iteration\", "
                     "\"real_time\": 3, \"time_unit\": \"ns\", "
                     "\"items_per_second\": Infinity, \"bytes_per_second\": "
                     "-Infinity, \"x\": NaN, \"label\": \"NaN Infinity\"},\n"
                     "{\"name\": \"BM_big_O\", \"run_name\": \"BM_rep\", "
                     "\"run_type\": \"aggregate\", \"aggregate_name\": "
                     "\"BigO\", \"cpu_coefficient\": 1, \"big_o\": \"N\"}\n"
                     "  ]\n}\n", &err), BP_OK);
  CHECK_EQ_STR(err.msg, "");
  CHECK_EQ_INT(r.nbenches, 6);
  static const char *const order[] = {
    "BM_ns", "BM_us", "BM_ms", "BM_s", "BM_rep/8", "BM_old"
  };
  for(size_t i = 0; i < r.nbenches && i < 6; i++) {
    CHECK_EQ_STR(r.benches[i].name, order[i]);
    CHECK_EQ_INT(r.benches[i].nmeasures, 1);
  }
  const struct bp_measure *m = measure(&r, "BM_ns", "latency");
  CHECK(m && m->value == 7.5 && !m->has_lower && !m->has_upper);
  m = measure(&r, "BM_us", "latency");
  CHECK(m && m->value == 1500);
  m = measure(&r, "BM_ms", "latency");
  CHECK(m && m->value == 2e6);
  m = measure(&r, "BM_s", "latency");
  CHECK(m && m->value == 2.5e8);
  m = measure(&r, "BM_rep/8", "latency");
  CHECK(m && m->value == 20000 && m->has_lower && m->lower == 10000 &&
        m->has_upper && m->upper == 30000);
  m = measure(&r, "BM_old", "latency");
  CHECK(m && m->value == 3);
  bpi_report_cleanup(&r);

  /* errors and skips leave benchmarks out; run_name falls back to name */
  CHECK_EQ_INT(parse(bpi_report_parse_gbench, &r, GB_HEAD
                     GB_IT("BM_ok", "BM_ok", "1", "ns") ",\n"
                     "{\"name\": \"BM_err/rep\", \"run_name\": \"BM_err\", "
                     "\"run_type\": \"iteration\", \"real_time\": 1, "
                     "\"time_unit\": \"ns\"},\n"
                     "{\"name\": \"BM_err/rep\", \"run_name\": \"BM_err\", "
                     "\"run_type\": \"iteration\", \"error_occurred\": true,"
                     " \"error_message\": \"boom\", \"real_time\": 0, "
                     "\"time_unit\": \"ns\"},\n"
                     GB_AGG("BM_err", "mean", "time", "1", "ns") ",\n"
                     "{\"name\": \"BM_skip\", \"run_type\": \"iteration\", "
                     "\"skipped\": true, \"skip_message\": \"later\", "
                     "\"real_time\": 0, \"time_unit\": \"ns\"},\n"
                     "{\"name\": \"BM_noname\", \"run_type\": \"iteration\","
                     " \"real_time\": 4, \"time_unit\": \"ns\"}\n"
                     "]}", &err), BP_OK);
  CHECK_EQ_INT(r.nbenches, 2);
  CHECK(measure(&r, "BM_ok", "latency") != NULL);
  CHECK(measure(&r, "BM_noname", "latency") != NULL);
  bpi_report_cleanup(&r);

  /* aggregates only (--benchmark_report_aggregates_only): the mean */
  CHECK_EQ_INT(parse(bpi_report_parse_gbench, &r, GB_HEAD
                     GB_AGG("BM_agg", "mean", "time", "5", "us") ",\n"
                     GB_AGG("BM_agg", "median", "time", "4", "us") ",\n"
                     GB_AGG("BM_agg", "stddev", "time", "1", "us") ",\n"
                     GB_AGG("BM_agg", "cv", "percentage", "0.2", "us") ",\n"
                     GB_AGG("BM_cv_only", "cv", "percentage", "0.2", "us")
                     "]}", &err), BP_OK);
  CHECK_EQ_INT(r.nbenches, 1);
  m = measure(&r, "BM_agg", "latency");
  CHECK(m && m->value == 5000 && !m->has_lower && !m->has_upper);
  bpi_report_cleanup(&r);

  /* nothing ran: an empty report */
  CHECK_EQ_INT(parse(bpi_report_parse_gbench, &r,
                     "{\"context\": {}, \"benchmarks\": []}", &err), BP_OK);
  CHECK_EQ_INT(r.nbenches, 0);

  /* the mean stays within min and max however the sum rounds */
  CHECK_EQ_INT(parse(bpi_report_parse_gbench, &r, GB_HEAD
                     GB_IT("BM_r", "BM_r", "0.1", "ns") ","
                     GB_IT("BM_r", "BM_r", "0.1", "ns") ","
                     GB_IT("BM_r", "BM_r", "0.1", "ns") "]}", &err), BP_OK);
  m = measure(&r, "BM_r", "latency");
  CHECK(m && m->lower <= m->value && m->value <= m->upper);
  char *out = written(&r);
  struct bp_report back;
  bpi_report_init(&back);
  CHECK_EQ_INT(bpi_report_parse_bmf(&back, out, strlen(out), "w", &err),
               BP_OK);
  CHECK(same_report(&r, &back));
  free(out);
  bpi_report_cleanup(&back);
  bpi_report_cleanup(&r);
}

static void test_gbench_errors(void)
{
  parse_fn f = bpi_report_parse_gbench;
  EXPECT_ERROR(f, "{\"benchmarks\": [", "bench.json:1:17: invalid JSON: "
               "unexpected end");
  /* offsets after NaN and Infinity stand-ins point into the original */
  EXPECT_ERROR(f, "{\"benchmarks\": [{\"a\": NaN, \"b\": Infinity, "
               "\"c\": tru}]}", "bench.json:1:48: invalid JSON");
  EXPECT_ERROR(f, "{\"benchmarks\": [{\"a\": NaNa}]}",
               "bench.json:1:23: invalid JSON");
  EXPECT_ERROR(f, "[]", "bench.json: at the top level: expected a Google "
               "Benchmark object, got an array");
  EXPECT_ERROR(f, "{\"context\": {}}", "at the top level: missing "
               "\"benchmarks\"");
  EXPECT_ERROR(f, "{\"benchmarks\": {}}", "at benchmarks: expected an array,"
               " got an object");
  EXPECT_ERROR(f, "{\"benchmarks\": [], \"benchmarks\": []}",
               "at benchmarks: duplicate key \"benchmarks\"");
  EXPECT_ERROR(f, "{\"benchmarks\": [" GB_IT("a", "a", "1", "ns") ", 5]}",
               "at benchmarks[1]: expected an object, got a number");
  /* the path of the brief: benchmarks[3].real_time */
  EXPECT_ERROR(f, "{\"benchmarks\": [" GB_IT("a", "a", "1", "ns") ","
               GB_IT("b", "b", "1", "ns") "," GB_IT("c", "c", "1", "ns") ","
               GB_IT("d", "d", "\"fast\"", "ns") "]}",
               "bench.json: at benchmarks[3].real_time: expected a number, "
               "got a string");
  EXPECT_ERROR(f, "{\"benchmarks\": [{\"name\": \"a\", \"run_type\": "
               "\"iteration\", \"time_unit\": \"ns\"}]}",
               "at benchmarks[0]: missing \"real_time\"");
  EXPECT_ERROR(f, "{\"benchmarks\": [{\"name\": \"a\", \"run_type\": "
               "\"iteration\", \"real_time\": 1}]}",
               "at benchmarks[0]: missing \"time_unit\"");
  EXPECT_ERROR(f, "{\"benchmarks\": [{\"run_type\": \"iteration\", "
               "\"real_time\": 1, \"time_unit\": \"ns\"}]}",
               "at benchmarks[0]: missing \"name\"");
  EXPECT_ERROR(f, "{\"benchmarks\": [{\"name\": 5, \"run_type\": "
               "\"iteration\", \"real_time\": 1, \"time_unit\": \"ns\"}]}",
               "at benchmarks[0].name: expected a string, got a number");
  EXPECT_ERROR(f, "{\"benchmarks\": [{\"name\": \"\", \"run_type\": "
               "\"iteration\", \"real_time\": 1, \"time_unit\": \"ns\"}]}",
               "at benchmarks[0].name: empty string");
  EXPECT_ERROR(f, "{\"benchmarks\": [{\"name\": \"a\", "
               "\"real_time\": 1, \"time_unit\": \"ns\"}]}",
               "at benchmarks[0]: missing \"run_type\"");
  EXPECT_ERROR(f, "{\"benchmarks\": [{\"name\": \"a\", \"run_type\": "
               "\"warmup\\n\", \"real_time\": 1, \"time_unit\": \"ns\"}]}",
               "at benchmarks[0].run_type: expected \"iteration\" or "
               "\"aggregate\", got \"warmup\\n\"");
  EXPECT_ERROR(f, "{\"benchmarks\": [" GB_IT("a", "a", "1", "xs") "]}",
               "at benchmarks[0].time_unit: expected \"ns\", \"us\", \"ms\" "
               "or \"s\", got \"xs\"");
  EXPECT_ERROR(f, "{\"benchmarks\": [" GB_IT("a", "a", "1", "") "]}",
               "at benchmarks[0].time_unit: empty string");
  EXPECT_ERROR(f, "{\"benchmarks\": [" GB_IT("a", "a", "-1", "ns") "]}",
               "at benchmarks[0].real_time: expected a finite number >= 0");
  EXPECT_ERROR(f, "{\"benchmarks\": [" GB_IT("a", "a", "Infinity", "ns")
               "]}", "at benchmarks[0].real_time: expected a finite number");
  EXPECT_ERROR(f, "{\"benchmarks\": [" GB_IT("a", "a", "NaN", "ns") "]}",
               "at benchmarks[0].real_time: expected a finite number");
  EXPECT_ERROR(f, "{\"benchmarks\": [" GB_IT("a", "a", "1e999", "ns") "]}",
               "at benchmarks[0].real_time: expected a finite number");
  EXPECT_ERROR(f, "{\"benchmarks\": [" GB_IT("a", "a", "1e300", "s") "]}",
               "at benchmarks[0].real_time: number out of range");
  EXPECT_ERROR(f, "{\"benchmarks\": [" GB_IT("a", "a", "1e308", "ns") ","
               GB_IT("a", "a", "1e308", "ns") "]}",
               "at [\"a\"]: the mean time is out of range");
  EXPECT_ERROR(f, "{\"benchmarks\": [{\"name\": \"a\", \"run_type\": "
               "\"iteration\", \"real_time\": 1, \"real_time\": 2, "
               "\"time_unit\": \"ns\"}]}",
               "at benchmarks[0].real_time: duplicate key \"real_time\"");
  EXPECT_ERROR(f, "{\"benchmarks\": [{\"name\": \"a\", \"run_type\": "
               "\"iteration\", \"error_occurred\": \"yes\"}]}",
               "at benchmarks[0].error_occurred: expected a boolean, got "
               "a string");
  EXPECT_ERROR(f, "{\"benchmarks\": [{\"name\": \"a\", \"run_type\": "
               "\"iteration\", \"repetitions\": \"3\", \"real_time\": 1, "
               "\"time_unit\": \"ns\"}]}",
               "at benchmarks[0].repetitions: expected a number, got a "
               "string");
  EXPECT_ERROR(f, "{\"benchmarks\": [{\"name\": \"a_mean\", \"run_type\": "
               "\"aggregate\", \"real_time\": 1, \"time_unit\": \"ns\"}]}",
               "at benchmarks[0]: missing \"aggregate_name\"");
  /* every benchmark failed */
  EXPECT_ERROR(f, "{\"benchmarks\": [{\"name\": \"BM_a\\nb\", \"run_type\": "
               "\"iteration\", \"error_occurred\": true, \"error_message\": "
               "\"out of \\u001b[31mmemory\"}, {\"name\": \"BM_c\", "
               "\"run_type\": \"iteration\", \"error_occurred\": true}]}",
               "bench.json: every benchmark failed (2); the first: "
               "[\"BM_a\\nb\"]: out of \\x1b[31mmemory");
}

/* --------------------------------------------------------------- torture */

#ifdef TORTURE
/* Every allocation of a parse fails in turn: the result is an error or the
 * success it would have been, nothing leaks, and a failed parse leaves the
 * report exactly as it was. */
static void torture(parse_fn fn, const char *json, bool prefill)
{
  long steps = 0;
  for(long n = 0;; n++) {
    struct bp_report r;
    struct bp_err err = {.code = BP_OK};
    long live_start = live;
    bpi_report_init(&r);
    if(prefill) {
      struct bp_bench *b = bpi_report_bench(&r, "sort");
      bpi_report_add_measure(b, "latency", 1);
      bpi_report_add_measure(b, "instructions", 2);
    }
    char *before = written(&r);
    failed_one = false;
    fail_in = n;
    bp_code rc = fn(&r, json, strlen(json), "t.json", &err);
    fail_in = -1;
    if(failed_one) {
      char *after = written(&r);
      CHECK(rc == BPE_NOMEM || rc == BPE_FORMAT);
      CHECK(after && before && !strcmp(after, before));
      free(after);
    }
    else
      CHECK_EQ_INT(rc, BP_OK);
    free(before);
    bpi_report_cleanup(&r);
    CHECK_EQ_INT(live, live_start);
    steps++;
    if(!failed_one)
      break;
  }
  CHECK(steps > 3);
}

static void test_torture(void)
{
  long live0 = live;
  static const char bmf[] =
    "{\"sort\": {\"latency\": {\"value\": 5, \"lower_value\": 4}, "
    "\"throughput\": {\"value\": 9}}, \"new\": {\"l\": {\"value\": 1}}, "
    "\"b\\u00e9\": {}, \"x\xff\": {\"m\": {\"value\": 1}}}";
  static const char gb[] = GB_HEAD
    GB_IT("BM_a", "BM_a", "1", "us") "," GB_IT("sort", "sort", "2", "ns") ","
    GB_IT("sort", "sort", "4", "ns") ","
    GB_AGG("BM_m", "mean", "time", "5", "us") ","
    "{\"name\": \"e\", \"run_type\": \"iteration\", \"error_occurred\": "
    "true, \"error_message\": \"x\"}]}";
  torture(bpi_report_parse_bmf, bmf, false);
  torture(bpi_report_parse_bmf, bmf, true);
  torture(bpi_report_parse_gbench, gb, false);
  torture(bpi_report_parse_gbench, gb, true);
  CHECK_EQ_INT(live, live0);

  /* the writer: a failed buffer, nothing leaked */
  struct bp_report r;
  struct bp_err err = {.code = BP_OK};
  bpi_report_init(&r);
  CHECK_EQ_INT(bpi_report_parse_bmf(&r, bmf, strlen(bmf), "t", &err), BP_OK);
  live0 = live;
  for(long n = 0;; n++) {
    struct bp_buf b;
    bpi_buf_init(&b);
    failed_one = false;
    fail_in = n;
    bpi_report_write_bmf(&r, &b);
    fail_in = -1;
    CHECK(bpi_buf_failed(&b) == failed_one);
    bpi_buf_cleanup(&b);
    if(!failed_one)
      break;
  }
  CHECK_EQ_INT(live, live0);
  /* measures and counters */
  struct bp_bench *b = bpi_report_bench(&r, "sort");
  fail_in = 0;
  CHECK_EQ_INT(bpi_report_add_measure(b, "new-one", 1), BPE_NOMEM);
  fail_in = 0;
  CHECK(bpi_report_bench(&r, "another") == NULL);
  fail_in = -1;
  CHECK_EQ_INT(live, live0);
  bpi_report_cleanup(&r);
}
#endif

/* bpi_report_bench_all: what bpi_report_bench does name by name (the
 * report's own names found, a name that is no UTF-8 as it was stored,
 * new ones added once, in order), and an empty name refused. */
static void test_bench_all(void)
{
  struct bp_report r, one;
  bpi_report_init(&r);
  bpi_report_init(&one);
  const char *names[] = {"b", "bad\xff", "a", "c", "b", "c", "bad\xff"};
  enum { N = sizeof(names) / sizeof(names[0]) };
  size_t at[N];
  CHECK(bpi_report_bench(&r, "a") && bpi_report_bench(&r, "bad\xff"));
  CHECK(bpi_report_bench(&one, "a") && bpi_report_bench(&one, "bad\xff"));
  CHECK_EQ_INT(bpi_report_bench_all(&r, names, N, at), BP_OK);
  for(size_t i = 0; i < N; i++) {
    struct bp_bench *b = bpi_report_bench(&one, names[i]);
    CHECK(b && at[i] == (size_t)(b - one.benches));
  }
  CHECK_EQ_INT(r.nbenches, 4);
  CHECK_EQ_INT(one.nbenches, 4);
  for(size_t i = 0; i < r.nbenches && i < one.nbenches; i++)
    CHECK_EQ_STR(r.benches[i].name, one.benches[i].name);
  const char *empty[] = {"d", ""};
  CHECK_EQ_INT(bpi_report_bench_all(&r, empty, 2, at), BPE_INVAL);
  bpi_report_cleanup(&r);
  bpi_report_cleanup(&one);
}

int main(void)
{
  test_bench_all();
  test_bmf_valid();
  test_bmf_invalid_json();
  test_bmf_errors();
  test_bmf_hostile_messages();
  test_write();
  test_round_trip();
  test_measures_and_counters();
  test_merge();
  test_gbench();
  test_gbench_errors();
#ifdef TORTURE
  test_torture();
#else
  printf("allocation-failure checks skipped (sanitizer build)\n");
#endif
  return check_exit();
}

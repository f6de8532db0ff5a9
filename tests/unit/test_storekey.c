/* test_storekey: the store's key builders (storekey.h) with hostile
 * parts: slashes, dots, "..", empty names, UTF-8, very long names and
 * "manifest.json" as a benchmark's name.  The expected keys pin today's
 * encoding: a change to the layout must change this test on purpose. */
#include "bp_setup.h"
#include "storekey.h"
#include "buf.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

static void check_key(char *got, const char *want)
{
  CHECK_EQ_STR(got, want);
  free(got);
}

static const struct bp_store_run plain = {"demo", "main", "abc123", "box",
                                          NULL};

static void test_layout(void)
{
  check_key(bpi_store_run_key(&plain), "demo/main/abc123/box");
  check_key(bpi_store_manifest_key(&plain),
            "demo/main/abc123/box/manifest.json");
  check_key(bpi_store_artifact_key(&plain, "bench", "profile.folded"),
            "demo/main/abc123/box/bench/profile.folded");
  check_key(bpi_store_latest_key("demo", "main", "box", NULL),
            "demo/main/latest/box.json");
  check_key(bpi_store_latest_file("box", NULL), "box.json");
}

static void test_hostile(void)
{
  const struct bp_store_run slashes = {"a/b", "feature/x", "c", "t/u",
                                         NULL};
  check_key(bpi_store_manifest_key(&slashes),
            "a%2Fb/feature%2Fx/c/t%2Fu/manifest.json");
  check_key(bpi_store_latest_key("a/b", "feature/x", "t/u", NULL),
            "a%2Fb/feature%2Fx/latest/t%2Fu.json");
  /* dot-segments and the empty name are encoded whole */
  const struct bp_store_run dots = {".", "..", "", "...", NULL};
  check_key(bpi_store_run_key(&dots), "%2E/%2E%2E/%00/...");
  check_key(bpi_store_artifact_key(&plain, "..", "../../etc/passwd"),
            "demo/main/abc123/box/%2E%2E/..%2F..%2Fetc%2Fpasswd");
  check_key(bpi_store_artifact_key(&plain, "", "."),
            "demo/main/abc123/box/%00/%2E");
  /* the latest pointer of a testbed "." or "..": the part, then .json */
  check_key(bpi_store_latest_key("p", "b", ".", NULL), "p/b/latest/%2E.json");
  check_key(bpi_store_latest_key("p", "b", "..", NULL),
            "p/b/latest/%2E%2E.json");
  check_key(bpi_store_latest_key("p", "b", "", NULL), "p/b/latest/%00.json");
  /* a benchmark named like the run's manifest gets another part (its
   * first byte escaped), so it is never the run's manifest's name */
  check_key(bpi_store_artifact_key(&plain, "manifest.json", "summary.json"),
            "demo/main/abc123/box/%6Danifest.json/summary.json");
  /* a name like the static pages' is another part at every level, and
   * the pages and their lists have keys no name makes */
  check_key(bpi_store_artifact_key(&plain, "index.html", "x"),
            "demo/main/abc123/box/%69ndex.html/x");
  check_key(bpi_store_key_decode("%69ndex.html"), "index.html");
  const char *level[] = {"index.html", "feature/x"};
  check_key(bpi_store_level_key(level, 2, BP_STORE_PAGE),
            "%69ndex.html/feature%2Fx/index.html");
  check_key(bpi_store_level_key(level, 0, BP_STORE_PROJECTS),
            "~projects.json");
  check_key(bpi_store_level_key(level, 1, BP_STORE_BRANCHES),
            "%69ndex.html/~branches.json");
  /* the whole run's artifacts, stored once */
  check_key(bpi_store_run_artifact_key(&plain, "summary.json"),
            "demo/main/abc123/box/~run/summary.json");
  /* UTF-8 bytes and the percent sign are escaped, so decoding is exact */
  check_key(bpi_store_artifact_key(&plain, "caf\xc3\xa9 100%", "x"),
            "demo/main/abc123/box/caf%C3%A9%20100%25/x");
  char *part = bpi_store_key_part("caf\xc3\xa9 100%");
  check_key(bpi_store_key_decode(part), "caf\xc3\xa9 100%");
  free(part);
  /* control characters, backslash, query and fragment characters */
  check_key(bpi_store_artifact_key(&plain, "a\nb\\c?d#e", "f"),
            "demo/main/abc123/box/a%0Ab%5Cc%3Fd%23e/f");
}

/* A long name is bounded: its first 96 bytes (encoded, cut between
 * characters), '~' and 16 hex digits of its SHA-256. */
static void test_long(void)
{
  char name[4097];
  memset(name, 'x', sizeof(name) - 1);
  name[sizeof(name) - 1] = '\0';
  char *key = bpi_store_artifact_key(&plain, name, "f");
  CHECK(key != NULL);
  CHECK_EQ_INT(key ? strlen(key) : 0, strlen("demo/main/abc123/box/") + 96
                                      + 1 + 16 + strlen("/f"));
  free(key);
  memset(name, '/', sizeof(name) - 1);
  key = bpi_store_key_part(name);
  /* 32 whole %2F escapes, never one cut in the middle */
  CHECK_EQ_INT(key ? strlen(key) : 0, 96 + 1 + 16);
  CHECK(key && key[96] == '~');
  free(key);
}

/* A suite joins the testbed's part in every key of the run ("~~" and
 * its own part), so two suites of one commit and testbed never share a
 * key; no suite ("" too) keeps the keys of old. */
static void test_suite(void)
{
  const struct bp_store_run fast = {"demo", "main", "abc123", "box", "fast"};
  const struct bp_store_run odd = {"demo", "main", "abc123", "t/u",
                                   "a/b ~c"};
  const struct bp_store_run empty = {"demo", "main", "abc123", "box", ""};
  check_key(bpi_store_run_key(&fast), "demo/main/abc123/box~~fast");
  check_key(bpi_store_manifest_key(&fast),
            "demo/main/abc123/box~~fast/manifest.json");
  check_key(bpi_store_artifact_key(&fast, "bench", "profile.folded"),
            "demo/main/abc123/box~~fast/bench/profile.folded");
  check_key(bpi_store_run_artifact_key(&fast, "comment.md"),
            "demo/main/abc123/box~~fast/~run/comment.md");
  check_key(bpi_store_latest_key("demo", "main", "box", "fast"),
            "demo/main/latest/box~~fast.json");
  check_key(bpi_store_latest_file("box", "fast"), "box~~fast.json");
  check_key(bpi_store_manifest_key(&odd),
            "demo/main/abc123/t%2Fu~~a%2Fb%20%7Ec/manifest.json");
  check_key(bpi_store_manifest_key(&empty),
            "demo/main/abc123/box/manifest.json");
  check_key(bpi_store_latest_key("demo", "main", "box", ""),
            "demo/main/latest/box.json");
  /* a reader's pointer names the suite's run by the parts it lists */
  check_key(bpi_store_pointer_run_key("demo", "main", "abc123", "box~~fast"),
            "demo/main/abc123/box~~fast");
  /* shown as "testbed (suite)"; split back into the two parts */
  check_key(bpi_store_key_decode("t%2Fu~~a%2Fb%20%7Ec"), "t/u (a/b ~c)");
  check_key(bpi_store_key_decode("box"), "box");
  char *t = NULL, *su = NULL;
  CHECK(bpi_store_testbed_split("t%2Fu~~a%2Fb%20%7Ec", &t, &su));
  CHECK_EQ_STR(t, "t%2Fu");
  CHECK_EQ_STR(su, "a%2Fb%20%7Ec");
  free(t);
  free(su);
  CHECK(bpi_store_testbed_split("box", &t, &su));
  CHECK_EQ_STR(t, "box");
  CHECK(su == NULL);
  free(t);
  /* a testbed whose part is bounded (prefix, '~', hash) still splits at
   * the suite's "~~", and its own '~' is not one */
  char name[300];
  memset(name, 'x', sizeof(name) - 1);
  name[sizeof(name) - 1] = '\0';
  char *part = bpi_store_testbed_part(name, "s");
  CHECK(part && strlen(part) == 96 + 1 + 16 + 2 + 1);
  CHECK(part && bpi_store_testbed_split(part, &t, &su));
  CHECK_EQ_INT(t ? strlen(t) : 0, 96 + 1 + 16);
  CHECK_EQ_STR(su, "s");
  free(t);
  free(su);
  free(part);
  /* names a suite may have */
  const char *why = NULL;
  CHECK(bpi_suite_valid("fast", &why) && !why);
  CHECK(bpi_suite_valid("bench_a.x-1", &why));
  /* a character the marker or the status context would replace: two
   * names could become one ("a b" and "a_b", any two CJK names) */
  CHECK(!bpi_suite_valid("a b", &why) && strstr(why, "character"));
  CHECK(!bpi_suite_valid("a/b", &why) && strstr(why, "character"));
  CHECK(!bpi_suite_valid("\xe9\x80\x9f", &why) && strstr(why, "character"));
  CHECK(!bpi_suite_valid("", &why) && why && strstr(why, "empty"));
  CHECK(!bpi_suite_valid(NULL, &why));
  CHECK(!bpi_suite_valid(" a", &why) && strstr(why, "character"));
  CHECK(!bpi_suite_valid("a\tb", &why) && strstr(why, "character"));
  CHECK(!bpi_suite_valid("\xff", &why) && strstr(why, "character"));
  char longname[BP_SUITE_MAX + 2];
  memset(longname, 's', sizeof(longname) - 1);
  longname[sizeof(longname) - 1] = '\0';
  CHECK(!bpi_suite_valid(longname, &why) && strstr(why, "longer"));
  longname[BP_SUITE_MAX] = '\0';
  CHECK(bpi_suite_valid(longname, &why));
}

/* Every key the builders make is parts that bpi_store_key_char and '%'
 * allow, never an empty or dot part. */
static void test_key_chars(void)
{
  static const char *const names[] = {"", ".", "..", "a/b", "\x01",
                                      "\xff", "manifest.json", "%"};
  for(size_t i = 0; i < BP_ARRAY_LEN(names); i++) {
    char *part = bpi_store_key_part(names[i]);
    CHECK(part && *part && strcmp(part, ".") && strcmp(part, ".."));
    for(const char *p = part; p && *p; p++)
      CHECK(bpi_store_key_char((unsigned char)*p) || *p == '%');
    free(part);
  }
}

/* The run a latest pointer names, from the key parts a reader lists and
 * the pointer's commit: the run's own key, whatever the names. */
static void test_pointer_run(void)
{
  const struct bp_store_run runs[] = {
    {"demo", "main", "abc123", "box", NULL},
    {"a/b", "feature/x", "../../etc", "t/u", NULL},
    {".", "..", "", "index.html", NULL},
    {"p", "b", "c/d%2Fe\n~", "manifest.json", NULL},
  };
  for(size_t i = 0; i < BP_ARRAY_LEN(runs); i++) {
    char *p = bpi_store_key_part(runs[i].project);
    char *b = bpi_store_key_part(runs[i].branch);
    char *t = bpi_store_key_part(runs[i].testbed);
    char *want = bpi_store_run_key(&runs[i]);
    check_key(bpi_store_pointer_run_key(p, b, runs[i].commit, t), want);
    free(want);
    free(p);
    free(b);
    free(t);
  }
  check_key(bpi_store_pointer_run_key("p", "b", "../x", "t"),
            "p/b/..%2Fx/t");
}

int main(void)
{
  test_layout();
  test_hostile();
  test_pointer_run();
  test_suite();
  test_long();
  test_key_chars();
  return check_exit();
}

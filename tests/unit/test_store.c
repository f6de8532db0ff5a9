/* test_store: key parts (round trips, hostile names), content types,
 * public URLs per backend, URL escaping, bad store URLs, and the file
 * backend (put, get, overwrite, not found, bad keys) in a temporary
 * directory. */
#include "bp_setup.h"
#include "store.h"
#include "storekey.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Every byte of a key part is safe: no '/', no control character, no
 * blank, and the part is no dot-segment. */
static bool part_safe(const char *p)
{
  if(!p[0] || !strcmp(p, ".") || !strcmp(p, ".."))
    return false;
  for(const unsigned char *c = (const unsigned char *)p; *c; c++)
    if(*c == '/' || *c <= ' ' || *c >= 0x7f)
      return false;
  return true;
}

static void round_trip(const char *name)
{
  char *part = bpi_store_key_part(name);
  CHECK(part != NULL);
  if(!part)
    return;
  CHECK(part_safe(part));
  char *back = bpi_store_key_decode(part);
  CHECK_EQ_STR(back, name);
  free(back);
  free(part);
}

static void test_key_parts(void)
{
  static const char *const names[] = {
    "main", "feature/x", "..", ".", "", "a/b", "../etc/passwd", "a\nb",
    "\x01\x1f\x7f", "100%", "%2F", "%", "%%41", "caf\xc3\xa9",
    "\xe2\x98\x83 snow", "\xff\xfe", "x=1,y@z+w", "...", ".hidden",
    "with space", "tab\there", "?query#frag", "back\\slash",
  };
  for(size_t i = 0; i < BP_ARRAY_LEN(names); i++)
    round_trip(names[i]);

  char *p = bpi_store_key_part("feature/x");
  CHECK_EQ_STR(p, "feature%2Fx");
  free(p);
  p = bpi_store_key_part("..");
  CHECK_EQ_STR(p, "%2E%2E");
  free(p);
  p = bpi_store_key_part(".");
  CHECK_EQ_STR(p, "%2E");
  free(p);
  p = bpi_store_key_part("");
  CHECK_EQ_STR(p, "%00");
  free(p);
  p = bpi_store_key_part("a.b-c_d+e=f,g@h");
  CHECK_EQ_STR(p, "a.b-c_d+e=f,g@h");
  free(p);
  p = bpi_store_key_part("50%");
  CHECK_EQ_STR(p, "50%25");
  free(p);
  p = bpi_store_key_part("caf\xc3\xa9");
  CHECK_EQ_STR(p, "caf%C3%A9");
  free(p);
  /* "..." is a name, not a dot-segment */
  p = bpi_store_key_part("...");
  CHECK_EQ_STR(p, "...");
  free(p);
  /* two different names never give the same part */
  char *a = bpi_store_key_part("a%2Fb");
  char *b = bpi_store_key_part("a/b");
  CHECK(a && b && strcmp(a, b) != 0);
  free(a);
  free(b);
  /* decoding leaves malformed escapes alone */
  p = bpi_store_key_decode("%zz%4");
  CHECK_EQ_STR(p, "%zz%4");
  free(p);
}

/* Long names (issue 21, F10): every part at most BP_STORE_KEY_PART_MAX
 * bytes, a readable prefix cut between characters, unique by a hash. */
static void test_bounded_parts(void)
{
  char ascii[257], ascii2[257], accents[261];
  memset(ascii, 'x', 256);
  ascii[256] = '\0';
  memcpy(ascii2, ascii, sizeof(ascii2));
  ascii2[255] = 'y';
  for(size_t i = 0; i < 130; i++)
    memcpy(accents + 2 * i, "\xc3\xa9", 2);
  accents[260] = '\0';
  const char *names[] = {ascii, ascii2, accents,
    "std::vector<std::pair<std::basic_string<char>, std::map<int, "
    "std::unique_ptr<Widget<float, 3>>>>>::emplace_back<int&, char const*>"
    "(int&, char const*&&) [with Alloc = std::allocator<void>]"};
  char *parts[BP_ARRAY_LEN(names)];
  for(size_t i = 0; i < BP_ARRAY_LEN(names); i++) {
    parts[i] = bpi_store_key_part(names[i]);
    CHECK(parts[i] && strlen(parts[i]) <= BP_STORE_KEY_PART_MAX);
    CHECK(parts[i] && part_safe(parts[i]) && strchr(parts[i], '~'));
  }
  CHECK(strcmp(parts[0], parts[1]) != 0);   /* differ only at the end */
  CHECK(!strncmp(parts[0], "xxxxxxxx", 8));  /* readable */
  /* é is %C3%A9: the prefix never ends inside one */
  char *tilde = strchr(parts[2], '~');
  CHECK(tilde && (tilde - parts[2]) % 6 == 0);
  char *shown = bpi_store_key_decode(parts[2]);
  CHECK(shown && !strncmp(shown, "\xc3\xa9\xc3\xa9", 4) &&
        !strcmp(shown + strlen(shown) - 3, "\xe2\x80\xa6"));
  free(shown);
  /* the same name, the same part */
  char *again = bpi_store_key_part(names[3]);
  CHECK_EQ_STR(again, parts[3]);
  free(again);
  for(size_t i = 0; i < BP_ARRAY_LEN(names); i++)
    free(parts[i]);
  /* a name that fits is unchanged: 120 bytes */
  memset(ascii, 'z', 120);
  ascii[120] = '\0';
  char *fit = bpi_store_key_part(ascii);
  CHECK_EQ_STR(fit, ascii);
  free(fit);
}

/* Benchmarks and the run's files never share a key (issue 21, F11, F13). */
static void test_key_namespaces(void)
{
  struct bp_store_run r = {"p", "main", "c0ffee", "tb", NULL};
  char *man = bpi_store_manifest_key(&r);
  char *bench = bpi_store_artifact_key(&r, "manifest.json", "summary.json");
  char *run = bpi_store_run_artifact_key(&r, "summary.json");
  char *named = bpi_store_artifact_key(&r, "~run", "summary.json");
  CHECK_EQ_STR(man, "p/main/c0ffee/tb/manifest.json");
  CHECK_EQ_STR(bench, "p/main/c0ffee/tb/%6Danifest.json/summary.json");
  CHECK_EQ_STR(run, "p/main/c0ffee/tb/~run/summary.json");
  CHECK_EQ_STR(named, "p/main/c0ffee/tb/%7Erun/summary.json");
  char *back = bpi_store_key_decode("%6Danifest.json");
  CHECK_EQ_STR(back, "manifest.json");
  free(back);
  free(man);
  free(bench);
  free(run);
  free(named);
}

/* A key: one safe part per name, so "a/b" and ".." stay in theirs. */
static void test_keys(void)
{
  const char *parts[] = {"proj", "feature/x", "..", "bench mark"};
  char *k = bpi_store_key(parts, 4);
  CHECK_EQ_STR(k, "proj/feature%2Fx/%2E%2E/bench%20mark");
  free(k);
  k = bpi_store_key(parts, 0);
  CHECK_EQ_STR(k, "");
  free(k);
}

static void test_content_types(void)
{
  const char *t, *e;
  bpi_store_content_type("profile.json.gz", &t, &e);
  CHECK_EQ_STR(t, "application/json");
  CHECK_EQ_STR(e, "gzip");
  bpi_store_content_type("profile.pb.gz", &t, &e);
  CHECK_EQ_STR(t, "application/octet-stream");
  CHECK(e == NULL);
  bpi_store_content_type("flame.svg", &t, &e);
  CHECK_EQ_STR(t, "image/svg+xml");
  CHECK(e == NULL);
  bpi_store_content_type("manifest.json", &t, &e);
  CHECK_EQ_STR(t, "application/json");
  CHECK(e == NULL);
  bpi_store_content_type("stacks.folded", &t, &e);
  CHECK_EQ_STR(t, "text/plain; charset=utf-8");
  CHECK(e == NULL);
  bpi_store_content_type("json", &t, &e);
  CHECK_EQ_STR(t, "text/plain; charset=utf-8");
}

static struct bp_store *open_store(const struct bp_store_opts *o)
{
  struct bp_err err = { .code = BP_OK };
  struct bp_store *st = NULL;
  bp_code rc = bpi_store_open(&st, o, &err);
  if(rc)
    fprintf(stderr, "open %s: %s\n", o->url, err.msg);
  CHECK_EQ_INT(rc, BP_OK);
  return st;
}

static void check_public(const struct bp_store_opts *o, const char *key,
                         const char *want)
{
  struct bp_store *st = open_store(o);
  if(!st)
    return;
  char *url = bpi_store_public_url(st, key);
  CHECK_EQ_STR(url, want);
  CHECK_EQ_STR(bpi_store_url(st), o->url);
  free(url);
  bpi_store_close(st);
}

static void test_public_urls(void)
{
  const char *key = "proj/feature%2Fx/abc/tb/bench/profile.json.gz";
  const char *esc = "proj/feature%252Fx/abc/tb/bench/profile.json.gz";
  char want[512];

  struct bp_store_opts o = { .url = "https://store.example/ci/" };
  snprintf(want, sizeof(want), "https://store.example/ci/%s", esc);
  check_public(&o, key, want);

  o.public_url = "https://cdn.example/p/";
  snprintf(want, sizeof(want), "https://cdn.example/p/%s", esc);
  check_public(&o, key, want);

  struct bp_store_opts s3 = { .url = "s3://bkt/runs/a b" };
  snprintf(want, sizeof(want),
           "https://bkt.s3.us-east-1.amazonaws.com/runs/a%%20b/%s", esc);
  check_public(&s3, key, want);
  s3.s3_region = "eu-west-3";
  s3.url = "s3://bkt";
  snprintf(want, sizeof(want), "https://bkt.s3.eu-west-3.amazonaws.com/%s",
           esc);
  check_public(&s3, key, want);
  s3.s3_endpoint = "http://127.0.0.1:4569/";
  s3.s3_path_style = true;
  snprintf(want, sizeof(want), "http://127.0.0.1:4569/bkt/%s", esc);
  check_public(&s3, key, want);
  s3.s3_path_style = false;
  s3.s3_endpoint = "http://s3.localhost:4569";
  snprintf(want, sizeof(want), "http://bkt.s3.localhost:4569/%s", esc);
  check_public(&s3, key, want);

  struct bp_store_opts f = { .url = "file:///srv/store/" };
  snprintf(want, sizeof(want), "file:///srv/store/%s", esc);
  check_public(&f, key, want);
}

static void check_where(const struct bp_store_opts *o, const char *want)
{
  struct bp_store *st = open_store(o);
  if(!st)
    return;
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_store_where(st, &b);
  bpi_buf_addc(&b, '\0');
  CHECK(!bpi_buf_failed(&b));
  CHECK_EQ_STR(b.data, want);
  bpi_buf_cleanup(&b);
  bpi_store_close(st);
}

/* where a store is, for a log line: its scheme and host, no path */
static void test_where(void)
{
  struct bp_store_opts o = { .url = "https://store.example:9000/ci/x/" };
  check_where(&o, "https://store.example:9000");
  struct bp_store_opts s3 = { .url = "s3://bkt/runs" };
  check_where(&s3, "https://bkt.s3.us-east-1.amazonaws.com");
  s3.s3_endpoint = "http://127.0.0.1:4569/";
  s3.s3_path_style = true;
  check_where(&s3, "http://127.0.0.1:4569");
  struct bp_store_opts f = { .url = "file:///srv/store/" };
  check_where(&f, "file:///srv/store/");
}

/* the status a failed request's message names, as a store's error
 * carries it on */
static void test_err_status(void)
{
  struct bp_err e = { .code = BPE_HTTP };
  snprintf(e.msg, sizeof(e.msg), "GET http://h/k: HTTP 401: no token");
  CHECK_EQ_INT((int)bpi_http_err_status(&e), 401);
  e.code = BPE_NET;
  snprintf(e.msg, sizeof(e.msg), "GET http://h/k: HTTP 503: busy (after 2 "
           "attempts)");
  CHECK_EQ_INT((int)bpi_http_err_status(&e), 503);
  snprintf(e.msg, sizeof(e.msg), "GET http://h/k: Failed to connect to h "
           "port 80: Couldn't connect to server");
  CHECK_EQ_INT((int)bpi_http_err_status(&e), 0);
  e.code = BPE_IO;   /* a file's error names no status */
  snprintf(e.msg, sizeof(e.msg), "cannot read 'x: HTTP 404'");
  CHECK_EQ_INT((int)bpi_http_err_status(&e), 0);
}

static void check_bad_open(const struct bp_store_opts *o, bp_code want,
                           const char *must_not_show)
{
  struct bp_err err = { .code = BP_OK };
  struct bp_store *st = NULL;
  CHECK_EQ_INT(bpi_store_open(&st, o, &err), want);
  CHECK(st == NULL);
  CHECK(err.msg[0] != '\0');
  if(must_not_show)
    CHECK(strstr(err.msg, must_not_show) == NULL);
}

static void test_bad_urls(void)
{
  struct bp_store_opts o = { .url = "ftp://host/x" };
  check_bad_open(&o, BPE_INVAL, NULL);
  o.url = "file://relative/dir";
  check_bad_open(&o, BPE_INVAL, NULL);
  o.url = "https://user:hunter2@host/x";
  check_bad_open(&o, BPE_INVAL, "hunter2");
  o.url = "https://host/x?sig=abc";
  check_bad_open(&o, BPE_INVAL, NULL);
  o.url = "s3://";
  check_bad_open(&o, BPE_INVAL, NULL);
  o.url = "s3://bad bucket/x";
  check_bad_open(&o, BPE_INVAL, NULL);
  o.url = "s3://bkt/x";
  o.aws_key = "AKIDONLY";
  check_bad_open(&o, BPE_INVAL, NULL);
  o.aws_key = NULL;
  o.s3_endpoint = "http://k:s3cr3t@127.0.0.1:1";
  check_bad_open(&o, BPE_INVAL, "s3cr3t");
  o.url = "";
  check_bad_open(&o, BPE_INVAL, NULL);
}

/* A file URL's path is percent-decoded and nothing more: "~~" (a suite's
 * separator in a key part) and "~" stay as they are in a directory's name. */
static void test_file_url_path(void)
{
  const char *tmp = getenv("TMPDIR");
  char dir[200];
  snprintf(dir, sizeof(dir), "%s/test_store_url.XXXXXX", tmp && tmp[0] ?
           tmp : "/tmp");
  CHECK(mkdtemp(dir) != NULL);
  char url[300];
  snprintf(url, sizeof(url), "file://%s/a~~b%%20c~1", dir);
  struct bp_store_opts o = { .url = url };
  struct bp_store *st = open_store(&o);
  if(!st)
    return;
  struct bp_err err = { .code = BP_OK };
  CHECK_EQ_INT(bpi_store_put(st, "k", "x", 1, "text/plain", NULL, &err),
               BP_OK);
  char path[400];
  snprintf(path, sizeof(path), "%s/a~~b c~1/k", dir);
  struct stat sb;
  CHECK(stat(path, &sb) == 0 && sb.st_size == 1);
  bpi_store_close(st);
  unlink(path);
  snprintf(path, sizeof(path), "%s/a~~b c~1", dir);
  rmdir(path);
  rmdir(dir);
}

struct seen {
  size_t n;
  bool box, box_a;
};

static void seen_name(void *ctx, const char *name)
{
  struct seen *s = ctx;
  s->n++;
  s->box |= !strcmp(name, "box.json");
  s->box_a |= !strcmp(name, "box~~a.json");
}

static void test_file_backend(void)
{
  const char *tmp = getenv("TMPDIR");
  char dir[200];
  snprintf(dir, sizeof(dir), "%s/test_store.XXXXXX", tmp && tmp[0] ? tmp :
           "/tmp");
  CHECK(mkdtemp(dir) != NULL);
  char url[300];
  snprintf(url, sizeof(url), "file://%s/root", dir);
  struct bp_store_opts o = { .url = url };
  struct bp_store *st = open_store(&o);
  if(!st)
    return;
  struct bp_err err = { .code = BP_OK };
  char *data = NULL;
  size_t len = 0;
  const char *key = "p/feature%2Fx/c/tb/%2E%2E/out.json.gz";
  static const char bytes[] = "\x1f\x8b\x08\0binary\0data";

  CHECK_EQ_INT(bpi_store_get(st, key, &data, &len, &err), BPE_NOT_FOUND);
  CHECK(strstr(err.msg, "no object") != NULL);
  CHECK(data == NULL);
  err.code = BP_OK;
  err.msg[0] = '\0';

  CHECK_EQ_INT(bpi_store_put(st, key, bytes, sizeof(bytes), "application/json",
                             "gzip", &err), BP_OK);
  CHECK_EQ_INT(bpi_store_get(st, key, &data, &len, &err), BP_OK);
  CHECK_EQ_INT(len, sizeof(bytes));
  /* raw, not gunzipped */
  CHECK(data && !memcmp(data, bytes, sizeof(bytes)));
  free(data);

  /* the part "%2E%2E" is a directory of that name, inside the root */
  char path[600];
  snprintf(path, sizeof(path), "%s/root/p/feature%%2Fx/c/tb/%%2E%%2E/"
           "out.json.gz", dir);
  struct stat sb;
  CHECK(stat(path, &sb) == 0 && sb.st_size == (off_t)sizeof(bytes));

  /* overwrite */
  CHECK_EQ_INT(bpi_store_put(st, key, "second", 6, "text/plain", NULL, &err),
               BP_OK);
  CHECK_EQ_INT(bpi_store_get(st, key, &data, &len, &err), BP_OK);
  CHECK_EQ_INT(len, 6);
  CHECK(data && !strcmp(data, "second"));
  free(data);

  /* from a file */
  char src[400];
  snprintf(src, sizeof(src), "%s/src.bin", dir);
  FILE *f = fopen(src, "wb");
  CHECK(f != NULL);
  if(f) {
    fwrite(bytes, 1, sizeof(bytes), f);
    fclose(f);
  }
  CHECK_EQ_INT(bpi_store_put_file(st, "p/latest/tb.json", src,
                                  "application/json", NULL, &err), BP_OK);
  CHECK_EQ_INT(bpi_store_get(st, "p/latest/tb.json", &data, &len, &err),
               BP_OK);
  CHECK_EQ_INT(len, sizeof(bytes));
  CHECK(data && !memcmp(data, bytes, sizeof(bytes)));
  free(data);
  snprintf(src, sizeof(src), "%s/missing", dir);
  CHECK_EQ_INT(bpi_store_put_file(st, "p/x", src, "text/plain", NULL, &err),
               BPE_IO);
  err.code = BP_OK;
  err.msg[0] = '\0';

  /* keys that would leave the root, or that were never encoded */
  static const char *const bad[] = {
    "../x", "a/../x", "a/./x", "/abs", "a//b", "a/", "", "a/b c",
    "a/\x01", "a/b\\c",
  };
  for(size_t i = 0; i < BP_ARRAY_LEN(bad); i++) {
    CHECK_EQ_INT(bpi_store_put(st, bad[i], "x", 1, "text/plain", NULL, &err),
                 BPE_INVAL);
    err.code = BP_OK;
    err.msg[0] = '\0';
    CHECK_EQ_INT(bpi_store_get(st, bad[i], &data, &len, &err), BPE_INVAL);
    err.code = BP_OK;
    err.msg[0] = '\0';
  }
  /* a folder's names, as the suites' hint lists latest/ */
  struct seen s = {0};
  CHECK(bpi_store_put(st, "p/b/latest/box.json", "{}", 2, "application/json",
                      NULL, &err) == BP_OK);
  CHECK(bpi_store_put(st, "p/b/latest/box~~a.json", "{}", 2,
                      "application/json", NULL, &err) == BP_OK);
  CHECK(bpi_store_list(st, "p/b/latest", seen_name, &s, &err) == BP_OK);
  CHECK_EQ_INT(s.n, 2);
  CHECK(s.box && s.box_a);
  CHECK_EQ_INT(bpi_store_list(st, "p/none", seen_name, &s, &err),
               BPE_NOT_FOUND);
  CHECK_EQ_INT(bpi_store_list(st, "p/../x", seen_name, &s, &err), BPE_INVAL);
  bpi_store_close(st);
  /* a store that cannot list says so, and asks nothing */
  struct bp_store_opts h = { .url = "http://127.0.0.1:9/s" };
  st = open_store(&h);
  if(st) {
    CHECK_EQ_INT(bpi_store_list(st, "p/b/latest", seen_name, &s, &err),
                 BPE_INVAL);
    bpi_store_close(st);
  }

  char cmd[300];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
}

static void test_escape(void)
{
  char *e = bpi_http_escape("a b/%~-._\xc3\xa9");
  CHECK_EQ_STR(e, "a%20b%2F%25~-._%C3%A9");
  free(e);
  e = bpi_http_escape("");
  CHECK_EQ_STR(e, "");
  free(e);
}

int main(void)
{
  test_key_parts();
  test_bounded_parts();
  test_key_namespaces();
  test_keys();
  test_content_types();
  test_public_urls();
  test_where();
  test_err_status();
  test_bad_urls();
  test_file_backend();
  test_file_url_path();
  test_escape();
  return check_exit();
}

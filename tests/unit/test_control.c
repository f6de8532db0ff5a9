/* control.c: the marker protocol's parser, the FIFO end to end (lines in
 * pieces, bad lines, unbalanced begin/end), directory names made from
 * hostile benchmark names, and profile slices by time. */
#include "bp_setup.h"
#include "check.h"

#include "control.h"
#include "profile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static bool parses(const char *line, const char *want_name, uint64_t want)
{
  char *name = NULL;
  uint64_t ns = 99;
  bp_code rc = bpi_control_parse(line, strlen(line), &name, &ns);
  bool ok = rc == BP_OK && ns == want &&
            (want_name ? name && !strcmp(name, want_name) : !name);
  free(name);
  return ok;
}

static bool rejects(const char *line)
{
  char *name = NULL;
  uint64_t ns;
  bp_code rc = bpi_control_parse(line, strlen(line), &name, &ns);
  free(name);
  return rc == BPE_FORMAT && !name;
}

static void test_parse(void)
{
  CHECK(parses("begin 123 sort", "sort", 123));
  CHECK(parses("begin - sort/1000", "sort/1000", 0));
  CHECK(parses("end 5", NULL, 5));
  CHECK(parses("end -", NULL, 0));
  CHECK(parses("begin! 7 acked", "acked", 7));  /* asks for an ack */
  CHECK(parses("end! -", NULL, 0));
  CHECK(rejects("begin!! 7 x"));
  CHECK(parses("begin 1 a%20b%0Ac%25", "a b\nc%", 1));
  CHECK(parses("begin 1 %2e%2E%2fx", "../x", 1));
  CHECK(rejects(""));
  CHECK(rejects("end"));
  CHECK(rejects("end "));
  CHECK(rejects("end 12x"));
  CHECK(rejects("ends -"));
  CHECK(rejects("begin -"));
  CHECK(rejects("begin - "));
  CHECK(rejects("begin  - x"));
  CHECK(rejects("begin - a b"));      /* a raw space */
  CHECK(rejects("begin - a\tb"));
  CHECK(rejects("begin - a%2"));      /* a cut escape */
  CHECK(rejects("begin - a%zz"));
  CHECK(rejects("begin - a%00b"));    /* C strings end at NUL */
  CHECK(rejects("begin 99999999999999999999 x"));
  CHECK(rejects("BEGIN - x"));
  CHECK(rejects("end - extra"));
}

static void put(int fd, const char *s)
{
  CHECK(write(fd, s, strlen(s)) == (ssize_t)strlen(s));
}

/* Lines through a real FIFO, split across writes, with the rules for
 * unbalanced markers. */
static void test_fifo(void)
{
  struct bp_control *c;
  struct bp_err err = {0};
  CHECK_EQ_INT(bpi_control_new(&c, NULL, NULL, &err), BP_OK);
  const char *env = bpi_control_env(c);
  CHECK(!strncmp(env, BP_CONTROL_ENV "=", strlen(BP_CONTROL_ENV) + 1));
  int fd = open(strchr(env, '=') + 1, O_WRONLY | O_NONBLOCK);
  CHECK(fd >= 0);
  put(fd, "end 5\nbegin 10 one\nbeg");
  CHECK_EQ_INT(bpi_control_read(c, 1000), BP_OK);
  put(fd, "in 20 two\ngarbage\nend -\nbegin 40 three");
  CHECK_EQ_INT(bpi_control_read(c, 30), BP_OK);
  close(fd);  /* a writer leaving is no EOF for us */
  CHECK_EQ_INT(bpi_control_finish(c, 50), BP_OK);
  size_t n;
  const struct bp_segment *s = bpi_control_segments(c, &n);
  CHECK_EQ_INT(n, 3);
  if(n == 3) {
    CHECK_EQ_STR(s[0].name, "one");
    CHECK_EQ_INT(s[0].begin_ns, 10);
    CHECK_EQ_INT(s[0].end_ns, 20);   /* ended by the next begin */
    CHECK_EQ_STR(s[1].name, "two");
    CHECK_EQ_INT(s[1].end_ns, 30);   /* "-": when it was read */
    CHECK_EQ_STR(s[2].name, "three"); /* last line, no newline */
    CHECK_EQ_INT(s[2].end_ns, 50);   /* ended by the exit */
  }
  const struct bp_control_stats *st = bpi_control_stats(c);
  CHECK_EQ_INT(st->bad_lines, 1);
  CHECK_EQ_INT(st->unmatched_end, 1);
  CHECK_EQ_INT(st->implicit_end, 2);
  bpi_control_free(c);
}

/* The directory of the control FIFO for XDG_RUNTIME_DIR=runtime and
 * tmpdir, into dir (the path's parent of its parent), or "" when
 * bpi_control_new() failed; checks it is gone after the free. */
static void control_dir(const char *runtime, const char *tmpdir, char *dir,
                        size_t len)
{
  struct bp_control *c;
  struct bp_err err = {0};
  dir[0] = '\0';
  if(bpi_control_new(&c, tmpdir, runtime, &err) != BP_OK)
    return;
  snprintf(dir, len, "%s", strchr(bpi_control_env(c), '=') + 1);
  *strrchr(dir, '/') = '\0';  /* <parent>/benchprof-ctl.XXXXXX */
  struct stat st;
  CHECK(stat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
        (st.st_mode & 0777) == 0700);
  bpi_control_free(c);
  CHECK(stat(dir, &st) != 0 && errno == ENOENT);  /* removed */
  *strrchr(dir, '/') = '\0';
}

/* The FIFOs go in TMPDIR when it is set; else on a memory file system
 * this user may write: the runtime directory, else /dev/shm (else /tmp). */
static void test_fifo_dir(void)
{
  char base[] = "/tmp/bp-ctl-test-XXXXXX", run[64], tmpd[64], dir[4200];
  CHECK(mkdtemp(base) != NULL);
  snprintf(run, sizeof(run), "%s/run", base);
  snprintf(tmpd, sizeof(tmpd), "%s/tmp", base);
  CHECK(mkdir(run, 0700) == 0 && mkdir(tmpd, 0700) == 0);
  control_dir(run, tmpd, dir, sizeof(dir));  /* TMPDIR set: there */
  CHECK_EQ_STR(dir, tmpd);
  control_dir(run, NULL, dir, sizeof(dir));
  CHECK_EQ_STR(dir, run);
  control_dir(run, "", dir, sizeof(dir));    /* empty is unset */
  CHECK_EQ_STR(dir, run);
  const char *shm = access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm"
                                                          : "/tmp";
  /* a runtime directory that is missing, or not absolute, is passed over */
  char gone[80];
  snprintf(gone, sizeof(gone), "%s/missing", base);
  control_dir(gone, NULL, dir, sizeof(dir));
  CHECK_EQ_STR(dir, shm);
  control_dir("relative", NULL, dir, sizeof(dir));
  CHECK_EQ_STR(dir, shm);
  control_dir(NULL, NULL, dir, sizeof(dir));
  CHECK_EQ_STR(dir, shm);
  /* a TMPDIR where nothing can be made: the error names it */
  struct bp_control *c;
  struct bp_err err = {0};
  CHECK_EQ_INT(bpi_control_new(&c, gone, run, &err), BPE_SYS);
  CHECK(strstr(err.msg, gone) != NULL);
  CHECK(rmdir(run) == 0 && rmdir(tmpd) == 0 && rmdir(base) == 0);
}

/* Bytes waiting on the ack FIFO (nonblocking read). */
static int acks(int fd)
{
  char buf[64];
  ssize_t n = read(fd, buf, sizeof(buf));
  return n < 0 ? 0 : (int)n;
}

/* "begin!" and "end!" each get one byte on <FIFO>.ack once applied; plain
 * lines none; a bad line that asked gets one too (nobody waits forever);
 * with no reader left benchprof still acks without blocking. */
static void test_ack(void)
{
  struct bp_control *c;
  struct bp_err err = {0};
  char ack[4200];
  CHECK_EQ_INT(bpi_control_new(&c, NULL, NULL, &err), BP_OK);
  const char *path = strchr(bpi_control_env(c), '=') + 1;
  snprintf(ack, sizeof(ack), "%s" BP_CONTROL_ACK_SUFFIX, path);
  int fd = open(path, O_WRONLY | O_NONBLOCK);
  int ak = open(ack, O_RDONLY | O_NONBLOCK);
  CHECK(fd >= 0 && ak >= 0);
  put(fd, "begin 1 plain\nend 2\n");
  CHECK_EQ_INT(bpi_control_read(c, 3), BP_OK);
  CHECK_EQ_INT(acks(ak), 0);
  put(fd, "begin! 4 acked\n");
  CHECK_EQ_INT(bpi_control_read(c, 5), BP_OK);
  CHECK_EQ_INT(acks(ak), 1);
  put(fd, "end! 6\nbegin! 7\n");  /* the second does not parse */
  CHECK_EQ_INT(bpi_control_read(c, 8), BP_OK);
  CHECK_EQ_INT(acks(ak), 2);
  close(ak);
  put(fd, "begin! 9 late\nend! 10\n");
  CHECK_EQ_INT(bpi_control_finish(c, 11), BP_OK);
  size_t n;
  bpi_control_segments(c, &n);
  CHECK_EQ_INT(n, 3);
  CHECK_EQ_INT(bpi_control_stats(c)->bad_lines, 1);
  close(fd);
  bpi_control_free(c);
  CHECK(access(ack, F_OK) != 0);  /* removed with the FIFO */
}

/* 4000 equal names (a harness repeating one benchmark): unique names in
 * linear time; the quadratic search over earlier names took 40 s. */
static void test_dirnames_many(void)
{
  enum { N = 4000 };
  static const char *names[N];
  char **d = NULL;
  for(size_t i = 0; i < N; i++)
    names[i] = i % 2 ? "same" : "same-2";  /* suffixes collide too */
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  CHECK_EQ_INT(bpi_control_dirnames(names, N, NULL, &d), BP_OK);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double secs = (double)(t1.tv_sec - t0.tv_sec) +
                (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  CHECK(secs < 1.0);
  if(!d)
    return;
  CHECK_EQ_STR(d[0], "same-2");
  CHECK_EQ_STR(d[1], "same");
  CHECK_EQ_STR(d[2], "same-2-2");
  CHECK_EQ_STR(d[3], "same-3");  /* same-2 is taken */
  bool unique = true;
  for(size_t i = 1; i < N && unique; i++)
    unique = strcmp(d[i], d[i - 1]) != 0;
  CHECK(unique);
  bpi_control_dirnames_free(d, N);
}

static bool safe_name(const char *s)
{
  if(!*s || s[0] == '.' || s[0] == '-' ||
     strlen(s) > BP_CONTROL_DIRNAME_MAX + 4)
    return false;
  return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                   "0123456789._-") == strlen(s);
}

static void test_dirnames(void)
{
  char longname[300];
  memset(longname, 'x', sizeof(longname) - 1);
  longname[sizeof(longname) - 1] = '\0';
  const char *names[] = {
    "sort", "sort", "../x", ".", "..", "a/b", "a_b", "", "-rf",
    "new\nline", "caf\xc3\xa9", longname, longname, "report.json", "sort-2",
  };
  const char *const reserved[] = {"report.json", NULL};
  char **d;
  size_t n = BP_ARRAY_LEN(names);
  CHECK_EQ_INT(bpi_control_dirnames(names, n, reserved, &d), BP_OK);
  CHECK_EQ_STR(d[0], "sort");
  CHECK_EQ_STR(d[1], "sort-2");
  CHECK_EQ_STR(d[2], "_._x");
  CHECK_EQ_STR(d[3], "_");
  CHECK_EQ_STR(d[4], "_.");
  CHECK_EQ_STR(d[5], "a_b");
  CHECK_EQ_STR(d[6], "a_b-2");
  CHECK_EQ_STR(d[7], "_-2");
  CHECK_EQ_STR(d[8], "_rf");
  CHECK_EQ_STR(d[9], "new_line");
  CHECK_EQ_STR(d[10], "caf__");
  CHECK_EQ_INT(strlen(d[11]), BP_CONTROL_DIRNAME_MAX);
  CHECK_EQ_INT(strlen(d[12]), BP_CONTROL_DIRNAME_MAX + 2);
  CHECK_EQ_STR(d[13], "report.json-2");
  CHECK_EQ_STR(d[14], "sort-2-2");
  for(size_t i = 0; i < n; i++) {
    CHECK(safe_name(d[i]));
    for(size_t j = 0; j < i; j++)
      CHECK(strcmp(d[i], d[j]) != 0);
  }
  bpi_control_dirnames_free(d, n);
}

/* Samples at 10, 20, ..., 100: [30, 60) holds 30, 40, 50. */
static void test_slice(void)
{
  struct bp_profile *p, *s;
  CHECK_EQ_INT(bpi_profile_new(&p), BP_OK);
  uint32_t lib = bpi_profile_lib(p, "/bin/x", "");
  uint32_t fr = bpi_profile_frame(p, lib, 0x10, BP_FRAME_USER);
  uint32_t st = bpi_profile_stack(p, BP_NONE, fr);
  uint32_t th = bpi_profile_thread(p, 1, 1);
  for(uint64_t t = 10; t <= 100; t += 10)
    CHECK_EQ_INT(bpi_profile_add_sample(p, th, st, t, 1), BP_OK);
  CHECK_EQ_INT(bpi_profile_add_marker(p, "m", 30, 60, NULL, 0), BP_OK);
  CHECK_EQ_INT(bpi_profile_slice(p, 30, 60, &s), BP_OK);
  CHECK_EQ_INT(s->meta.samples, 3);
  CHECK_EQ_INT(bpi_profile_duration_ns(&s->meta), 30);
  CHECK_EQ_INT(s->ncounts, 1);
  CHECK_EQ_INT(s->counts[0].count, 3);
  CHECK_EQ_INT(s->threads[th].samples, 3);
  CHECK_EQ_INT(s->threads[th].start_ns, 30);
  CHECK_EQ_INT(s->threads[th].end_ns, 50);
  CHECK_EQ_INT(s->nmarkers, 0);
  CHECK_EQ_STR(bpi_profile_str(s, s->libs[lib].path), "/bin/x");
  CHECK_EQ_INT(s->nstacks, p->nstacks);
  bpi_profile_free(s);
  /* a benchmark run three times: the samples of all its ranges, in any
   * order, overlapping ones merged */
  struct bp_range r[] = {{70, 90}, {10, 20}, {75, 80}, {40, 50}};
  CHECK_EQ_INT(bpi_profile_slice_ranges(p, r, 4, &s), BP_OK);
  CHECK_EQ_INT(s->meta.samples, 4);  /* 10, 40, 70, 80 */
  CHECK_EQ_INT(s->meta.start_ns, 10);
  CHECK_EQ_INT(s->meta.end_ns, 90);
  /* its time is its ranges' (10 + 10 + 20), not the 80 from its first
   * begin to its last end, the gaps between them other benchmarks' */
  CHECK_EQ_INT(bpi_profile_duration_ns(&s->meta), 40);
  CHECK_EQ_INT(s->threads[th].start_ns, 10);
  CHECK_EQ_INT(s->threads[th].end_ns, 80);
  bpi_profile_free(s);
  bpi_profile_free(p);
}

/* Slices read through the timeline's index hold exactly the samples a
 * scan finds, in the same order: ranges falling between samples, on a
 * sample, before the first and after the last, several per slice; a
 * timeline whose times go back is scanned. */
static void check_indexed_like_scan(struct bp_profile *p,
                                    const struct bp_range *r, size_t n,
                                    const struct bp_timeline_index *ix)
{
  struct bp_profile *a, *b;
  struct bp_sample sa, sb;
  CHECK_EQ_INT(bpi_profile_slice_ranges(p, r, n, &a), BP_OK);
  CHECK_EQ_INT(bpi_profile_slice_indexed(p, r, n, ix, &b), BP_OK);
  CHECK_EQ_INT(b->meta.samples, a->meta.samples);
  CHECK_EQ_INT(b->timeline_len, a->timeline_len);
  CHECK_EQ_INT(bpi_profile_timeline_rewind(a), BP_OK);
  CHECK_EQ_INT(bpi_profile_timeline_rewind(b), BP_OK);
  while(bpi_profile_timeline_next(a, &sa)) {
    CHECK(bpi_profile_timeline_next(b, &sb));
    CHECK_EQ_INT(sb.time_ns, sa.time_ns);
    CHECK_EQ_INT(sb.thread, sa.thread);
    CHECK_EQ_INT(sb.weight, sa.weight);
  }
  CHECK(!bpi_profile_timeline_next(b, &sb));
  bpi_profile_free(a);
  bpi_profile_free(b);
}

static void test_slice_indexed(void)
{
  struct bp_profile *p;
  struct bp_timeline_index ix;
  CHECK_EQ_INT(bpi_profile_new(&p), BP_OK);
  uint32_t lib = bpi_profile_lib(p, "/bin/x", "");
  uint32_t fr = bpi_profile_frame(p, lib, 0x10, BP_FRAME_USER);
  uint32_t st = bpi_profile_stack(p, BP_NONE, fr);
  uint32_t th[2] = {bpi_profile_thread(p, 1, 1), bpi_profile_thread(p, 1, 2)};
  /* 3,000 samples at 10, 20, ..., two at each of some times */
  for(uint64_t i = 1; i <= 3000; i++) {
    CHECK_EQ_INT(bpi_profile_add_sample(p, th[i % 2], st, i * 10, i), BP_OK);
    if(i % 7 == 0)
      CHECK_EQ_INT(bpi_profile_add_sample(p, th[0], st, i * 10, 1), BP_OK);
  }
  CHECK_EQ_INT(bpi_profile_timeline_index(p, &ix), BP_OK);
  CHECK(ix.sorted);
  CHECK_EQ_INT(ix.n, p->timeline_len);
  const struct bp_range cases[][3] = {
    {{30, 60}}, {{35, 65}}, {{0, 5}}, {{0, 10}}, {{0, 11}},
    {{29990, 30000}}, {{29995, 40000}}, {{30000, 30001}}, {{70, 70}},
    {{700, 990}, {10, 40}, {25000, 25070}},
  };
  for(size_t c = 0; c < BP_ARRAY_LEN(cases); c++)
    check_indexed_like_scan(p, cases[c], cases[c][2].end_ns ? 3 : 1, &ix);
  bpi_timeline_index_cleanup(&ix);
  /* samples added after slicing (a run merged repetition by repetition)
   * are appended: the whole timeline reads back, the new one last */
  CHECK_EQ_INT(bpi_profile_add_sample(p, th[0], st, 40000, 7), BP_OK);
  uint64_t n = 0, last = 0;
  struct bp_sample smp;
  CHECK_EQ_INT(bpi_profile_timeline_rewind(p), BP_OK);
  while(bpi_profile_timeline_next(p, &smp)) {
    n++;
    last = smp.time_ns;
  }
  CHECK_EQ_INT(n, p->timeline_len);
  CHECK_EQ_INT(last, 40000);
  bpi_profile_free(p);
  /* a time that goes back: not sorted, and the slice scans */
  CHECK_EQ_INT(bpi_profile_new(&p), BP_OK);
  lib = bpi_profile_lib(p, "/bin/x", "");
  fr = bpi_profile_frame(p, lib, 0x10, BP_FRAME_USER);
  st = bpi_profile_stack(p, BP_NONE, fr);
  th[0] = bpi_profile_thread(p, 1, 1);
  for(uint64_t t = 10; t <= 100; t += 10)
    CHECK_EQ_INT(bpi_profile_add_sample(p, th[0], st, t, 1), BP_OK);
  CHECK_EQ_INT(bpi_profile_add_sample(p, th[0], st, 15, 1), BP_OK);
  CHECK_EQ_INT(bpi_profile_timeline_index(p, &ix), BP_OK);
  CHECK(!ix.sorted);
  const struct bp_range back = {10, 30};
  check_indexed_like_scan(p, &back, 1, &ix);
  struct bp_profile *s;
  CHECK_EQ_INT(bpi_profile_slice_indexed(p, &back, 1, &ix, &s), BP_OK);
  CHECK_EQ_INT(s->meta.samples, 3);  /* 10, 20 and the late 15 */
  bpi_profile_free(s);
  bpi_timeline_index_cleanup(&ix);
  bpi_profile_free(p);
  /* a run without a sample (a harness that only marks) has no timeline
   * file: its benchmarks' slices are empty */
  CHECK_EQ_INT(bpi_profile_new(&p), BP_OK);
  th[0] = bpi_profile_thread(p, 1, 1);
  CHECK_EQ_INT(bpi_profile_timeline_index(p, &ix), BP_OK);
  s = NULL;
  CHECK_EQ_INT(bpi_profile_slice_indexed(p, &back, 1, &ix, &s), BP_OK);
  CHECK(s && s->meta.samples == 0);
  bpi_profile_free(s);
  bpi_timeline_index_cleanup(&ix);
  bpi_profile_free(p);
}

/* A slice holds only what its samples use: the other benchmark's
 * library, function, frames and stacks (and their strings) stay out;
 * parents, an inlined call's machine frame and functions come along,
 * under handles that keep a parent below its child. */
static void test_slice_compact(void)
{
  struct bp_profile *p, *s;
  CHECK_EQ_INT(bpi_profile_new(&p), BP_OK);
  uint32_t other = bpi_profile_lib(p, "/bin/other", "");
  uint32_t lib = bpi_profile_lib(p, "/bin/x", "ab");
  uint32_t f_other = bpi_profile_frame(p, other, 0x10, BP_FRAME_USER);
  p->frames[f_other].func = bpi_profile_func(p, "elsewhere", "", other, 0);
  uint32_t f_main = bpi_profile_frame(p, lib, 0x20, BP_FRAME_USER);
  p->frames[f_main].func = bpi_profile_func(p, "main", "x.c", lib, 3);
  uint32_t f_hot = bpi_profile_frame(p, lib, 0x30, BP_FRAME_USER);
  uint32_t fn_inl = bpi_profile_func(p, "inl", "x.h", lib, 9);
  uint32_t f_inl = bpi_profile_inline_frame(p, f_hot, 1, fn_inl, 10);
  uint32_t st_other = bpi_profile_stack(p, BP_NONE, f_other);
  uint32_t st_main = bpi_profile_stack(p, BP_NONE, f_main);
  uint32_t st_hot = bpi_profile_stack(p, st_main, f_hot);
  uint32_t st_leaf = bpi_profile_stack(p, st_hot, f_inl);
  uint32_t th = bpi_profile_thread(p, 1, 1);
  CHECK_EQ_INT(bpi_profile_add_sample(p, th, st_other, 10, 1), BP_OK);
  CHECK_EQ_INT(bpi_profile_add_sample(p, th, st_leaf, 40, 1), BP_OK);
  CHECK_EQ_INT(bpi_profile_add_sample(p, th, st_other, 70, 1), BP_OK);
  CHECK_EQ_INT(bpi_profile_slice(p, 30, 60, &s), BP_OK);
  CHECK_EQ_INT(s->meta.samples, 1);
  CHECK_EQ_INT(s->nlibs, 1);
  CHECK_EQ_INT(s->nstacks, 3);
  CHECK_EQ_INT(s->nframes, 3);
  CHECK_EQ_INT(s->nfuncs, 2);
  CHECK_EQ_INT(bpi_strtab_find(&s->strings, "/bin/other"), BP_NONE);
  CHECK_EQ_INT(bpi_strtab_find(&s->strings, "elsewhere"), BP_NONE);
  CHECK_EQ_INT(s->ncounts, 1);
  uint32_t leaf = s->ncounts ? s->counts[0].stack : BP_NONE;
  CHECK(leaf < s->nstacks);
  if(leaf < s->nstacks) {
    const struct bp_frame *fi = &s->frames[s->stacks[leaf].frame];
    CHECK_EQ_INT(fi->inline_depth, 1);
    CHECK(fi->outer < s->nframes);
    CHECK_EQ_INT(fi->outer < s->nframes ? s->frames[fi->outer].addr : 0,
                 0x30);
    CHECK_EQ_STR(bpi_profile_str(s, s->funcs[fi->func].name), "inl");
    uint32_t hot = s->stacks[leaf].parent;
    CHECK(hot < leaf);
    uint32_t top = hot < s->nstacks ? s->stacks[hot].parent : BP_NONE;
    CHECK(top < hot);
    if(top < hot) {
      const struct bp_frame *fm = &s->frames[s->stacks[top].frame];
      CHECK_EQ_STR(bpi_profile_str(s, s->funcs[fm->func].name), "main");
      CHECK_EQ_STR(bpi_profile_str(s, s->libs[fm->lib].path), "/bin/x");
      CHECK_EQ_STR(bpi_profile_str(s, s->libs[fm->lib].build_id), "ab");
      CHECK_EQ_INT(s->stacks[top].parent, BP_NONE);
    }
  }
  bpi_profile_free(s);
  bpi_profile_free(p);
}

int main(void)
{
  test_parse();
  test_fifo();
  test_fifo_dir();
  test_ack();
  test_dirnames();
  test_dirnames_many();
  test_slice();
  test_slice_indexed();
  test_slice_compact();
  return check_exit();
}

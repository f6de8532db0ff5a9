/* storekey: the store's layout, the one place its keys are built.
 *   {project}/{branch}/{commit}/{testbed}/{benchmark}/{file}  artifacts
 *   {project}/{branch}/{commit}/{testbed}/manifest.json       per run
 *     (the commit's run on the testbed that ended last: an older one
 *     delivered later leaves it and the artifacts alone, publish.h)
 *   {project}/{branch}/latest/{testbed}.json                  updated last
 * A run with a suite (`--suite`: one of several benchmark steps of a CI
 * job, each published apart) has {testbed} = the testbed's key part,
 * "~~" (BP_STORE_SUITE_SEP) and the suite's key part, in every key above:
 *   {project}/{branch}/{commit}/{testbed}~~{suite}/manifest.json
 *   {project}/{branch}/latest/{testbed}~~{suite}.json
 * so each suite has its own manifest, artifacts and latest pointer per
 * testbed.  No key part ever holds "~~" (an encoded part keeps no '~';
 * a bounded one has a single '~' before hex digits), so the first "~~"
 * splits the testbed's part from the suite's (bpi_store_testbed_split),
 * and a run without a suite keeps the keys it always had.
 * Each name becomes one key part (bpi_store_key_part: reversible with
 * bpi_store_key_decode), so a branch "feature/x" or a benchmark named
 * "../etc" stays one part and no key leaves the store's root.  Writers
 * (publish_store.c, the PR comparison, site.c) and readers
 * (compare_store.c, the viewer's serve_pages.c) all build keys here.  Every function returns a malloc'd string, NULL
 * when out of memory. */
#ifndef BP_LIB_STOREKEY_H
#define BP_LIB_STOREKEY_H

#include <stdbool.h>
#include <stddef.h>

struct bp_buf;

/* The run a key belongs to; commit is the hash, or publish.c's local-...
 * name for a run without one. */
struct bp_store_run {
  const char *project, *branch, *commit, *testbed;
  const char *suite;   /* NULL or "": none (the keys of old) */
};

/* Whether suite is a usable suite name: 1 to BP_SUITE_MAX ASCII letters,
 * digits, '.', '_' or '-' (it stands as it is in keys, a comment's marker
 * and a commit status's context, so two names never become one); else false
 * and *why says what is wrong ("is empty"). */
#define BP_SUITE_MAX 64
bool bpi_suite_valid(const char *suite, const char **why);

/* Between a testbed's key part and its suite's. */
#define BP_STORE_SUITE_SEP "~~"
/* The testbed's key part, then with a suite (not NULL nor "")
 * BP_STORE_SUITE_SEP and the suite's key part, appended to b. */
void bpi_store_add_testbed_part(struct bp_buf *b, const char *testbed,
                                const char *suite);
/* The same, malloc'd. */
char *bpi_store_testbed_part(const char *testbed, const char *suite);
/* A testbed level key part (a directory or a pointer's name without
 * ".json") split into the testbed's key part (*testbed, malloc'd) and
 * the suite's (*suite, malloc'd; NULL when the part has none).  False
 * when out of memory (both NULL). */
bool bpi_store_testbed_split(const char *part, char **testbed,
                             char **suite);

/* {project}/{branch}/{commit}/{testbed} */
char *bpi_store_run_key(const struct bp_store_run *r);
/* {project}/{branch}/{commit}/{testbed}/manifest.json */
char *bpi_store_manifest_key(const struct bp_store_run *r);
/* {project}/{branch}/{commit}/{testbed}/{bench}/{file}: bench is the
 * benchmark's profile directory.  A bench part that would read like one
 * of the run's files at that level (manifest.json) has its first byte
 * escaped, so benchmarks and run files never share a key. */
char *bpi_store_artifact_key(const struct bp_store_run *r,
                             const char *bench, const char *file);
/* {project}/{branch}/{commit}/{testbed}/~run/{file}: the whole run's
 * artifacts, stored once; a benchmark without a profile of its own refers
 * to these keys.  '~' is never kept as it is in an encoded part, so no
 * benchmark's part can be "~run". */
#define BP_STORE_RUN_PART "~run"
char *bpi_store_run_artifact_key(const struct bp_store_run *r,
                                 const char *file);
/* {project}/{branch}/{commit}/{testbed} from what a reader of the store
 * has: the project, branch and testbed as key parts (names of its
 * directories and pointers, used as they are) and the commit's name (a
 * latest pointer's "commit", made a key part here): the run the pointer
 * names. */
char *bpi_store_pointer_run_key(const char *project_part,
                                const char *branch_part, const char *commit,
                                const char *testbed_part);
/* {project}/{branch}/latest/{testbed}.json ({testbed} with the suite's
 * part when suite is neither NULL nor "") */
char *bpi_store_latest_key(const char *project, const char *branch,
                           const char *testbed, const char *suite);
/* The latest pointer's file name for a testbed, "{testbed}.json". */
char *bpi_store_latest_file(const char *testbed, const char *suite);
#define BP_STORE_LATEST "latest"   /* the pointers' directory */

/* The viewer's static pages (site.h), for a bucket website or CDN:
 *   index.html                                  the projects
 *   {project}/index.html                        its branches
 *   {project}/{branch}/index.html               its runs, newest first
 *   {project}/{branch}/{commit}/{testbed}/index.html   one run
 * and the lists they are made from, one object per level, updated with
 * conditional writes: ~projects.json, {project}/~branches.json,
 * {project}/{branch}/~runs.json.  A key part never starts with '~' and a
 * name "index.html" is a part with its first byte escaped, so neither
 * ever meets a key made from a name. */
#define BP_STORE_PAGE "index.html"
#define BP_STORE_PROJECTS "~projects.json"
#define BP_STORE_BRANCHES "~branches.json"
#define BP_STORE_RUNS "~runs.json"
/* The n names' key parts, then "/" and file (file as it is): file alone
 * when n is 0. */
char *bpi_store_level_key(const char *const *names, size_t n,
                          const char *file);

/* One key part: bytes outside [A-Za-z0-9._-+=,@] and '%' become %XX, and
 * a part that is "", "." or ".." is encoded whole ("" as "%00"), so a
 * part never contains '/', a control character or a dot-segment.  An
 * encoding longer than BP_STORE_KEY_PART_MAX bytes (a file system takes
 * 255) becomes its first bytes (at most 96, cut between characters), '~'
 * and 16 hex digits of the name's SHA-256: bounded and still unique.
 * A name "index.html" (the static pages' name) has its first byte
 * escaped. */
#define BP_STORE_KEY_PART_MAX 120
char *bpi_store_key_part(const char *name);
/* The same, appended to b. */
void bpi_store_add_key_part(struct bp_buf *b, const char *name);
/* A key of n names: each made one key part, joined by '/'. */
char *bpi_store_key(const char *const *parts, size_t n);
/* The name a key part was made from (for display; a bounded part gives
 * its prefix and "…"; a testbed's part with a suite's,
 * "TESTBED (SUITE)"). */
char *bpi_store_key_decode(const char *part);
/* Whether a key part keeps byte c as it is. */
bool bpi_store_key_char(unsigned char c);

#endif

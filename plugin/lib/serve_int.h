/* serve_int: what the two halves of the viewer share: HTTP (serve.c the
 * server, serve_answer.c the answers, serve_paths.c URLs, key parts and
 * files; their libmicrohttpd part in serve_mhd.h) and the pages
 * (serve_pages.c the HTML pages, serve_links.c the latest runs' links).
 * Internal to them. */
#ifndef BP_LIB_SERVE_INT_H
#define BP_LIB_SERVE_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <time.h>

#include "buf.h"
#include "rundir.h"
#include "serve.h"
#include "storekey.h"

#define PROFILER_FROM_URL "https://profiler.firefox.com/from-url/"
#define MAX_SEGMENTS 32      /* deeper than any store key */
#define MAX_ENTRIES 100000   /* per directory listed */

/* The store's levels, by how many key parts lead to a directory. */
enum level {
  LEVEL_ROOT,       /* projects */
  LEVEL_PROJECT,    /* branches */
  LEVEL_BRANCH,     /* commits and latest/ */
  LEVEL_COMMIT,     /* testbeds */
  LEVEL_TESTBED,    /* benchmarks and manifest.json */
  LEVEL_BENCHMARK,  /* a benchmark's artifacts */
};

/* Which part of a path names what: parts[PART_BRANCH] is the branch. */
enum part {
  PART_PROJECT, PART_BRANCH, PART_COMMIT, PART_TESTBED, PART_BENCHMARK
};


#define LATEST_DIR BP_STORE_LATEST
#define PROFILE_FILE BP_FILE_GECKO
#define SVG_FILE BP_FILE_SVG
#define SUMMARY_FILE BP_FILE_SUMMARY

struct watched;  /* serve_mhd.h: a connection and its header deadline */

struct bp_serve {
  struct MHD_Daemon *daemon;
  char *root;       /* realpath of the store directory */
  size_t root_len;
  unsigned port;
  char *url;        /* "http://HOST:PORT/" */
  char *base;       /* what links start with: the public URL, else url */
  char **origins;   /* allowed to read cross-origin (serve.h) */
  size_t norigins;
  /* the connections and the watchdog over their header deadlines */
  pthread_mutex_t lock;
  pthread_cond_t wake;
  struct watched *conns;
  pthread_t watchdog;
  bool watching, stopping;
};

/* A request's path split into decoded segments (on-disk names). */
struct target {
  char *parts[MAX_SEGMENTS];
  size_t n;
  bool slash;        /* the URL ended with '/' */
  char *path;        /* root + "/" + parts */
};

struct entry {
  char *name;      /* on disk (a key part) */
  bool dir;
  long long size;
  time_t mtime;    /* for commits: their newest manifest's */
  bool hidden;     /* shown in a section of its own */
};

struct listing {
  struct entry *e;
  size_t n;
};

struct cJSON;

/* the status a page answers when out of memory (HTTP 500) */
#define BP_HTTP_INTERNAL_ERROR 500

/* serve_paths.c: names */
char *bpi_serve_display_name(const char *part);
void bpi_serve_add_key_href(struct bp_buf *b, const char *key);
void bpi_serve_add_path(struct bp_buf *b, char *const *parts, size_t n,
                        bool dir);
/* serve_paths.c: paths */
bool bpi_serve_inside_root(const struct bp_serve *sv, const char *path,
                           struct stat *st, char **real, int *status);
int bpi_serve_parse_target(const struct bp_serve *sv, const char *url,
                           struct target *t);
void bpi_serve_target_cleanup(struct target *t);
/* serve_paths.c: listings */
void bpi_serve_listing_cleanup(struct listing *l);
char *bpi_serve_concat(const char *a, const char *b);
bp_code bpi_serve_list_dir(const struct bp_serve *sv, const char *dir,
                           struct listing *l, struct bp_err *err);
time_t bpi_serve_commit_time(const struct bp_serve *sv, const char *dir,
                             time_t fallback);

/* serve_pages.c */
bp_code bpi_serve_page_dir(const struct bp_serve *sv, struct bp_buf *b,
                           const struct target *t, const char *dir,
                           struct bp_err *err);
char *bpi_serve_pointer_dir(const struct cJSON *ptr, const char *project,
                            const char *branch, const char *testbed);

#endif

/* benchprof serve: serve a local artifact store to a browser, read-only,
 * until SIGINT or SIGTERM.  Prints the index page's URL, then one line
 * per latest profile with its Firefox Profiler link (from-url, pointing
 * back at this server). */
#include "bp_setup.h"
#include "cli.h"
#include "msgs.h"

#include "config.h"
#include "err.h"
#include "publish.h"
#include "serve.h"
#include "text.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static const char usage_line[] =
  "usage: benchprof serve [--port N] [--bind ADDR] [--public-url URL]\n"
  "                       [--allow-origin ORIGIN]... [--config FILE]\n"
  "                       [STORE_DIR]";

static void usage(FILE *to)
{
  fprintf(to,
          "%s\n"
          "\n"
          "Serve a local artifact store (what `benchprof run` publishes to a\n"
          "file:// store) read-only over HTTP, with an index page per\n"
          "project, branch, commit, testbed and benchmark, flame graphs\n"
          "inline, and links that open each profile in the Firefox Profiler.\n"
          "Runs until interrupted (SIGINT or SIGTERM).\n"
          "\n"
          "  STORE_DIR     the store's directory or file:// URL (default: the\n"
          "                store run publishes to: store.url of the\n"
          "                configuration, else $XDG_DATA_HOME/benchprof/store)\n"
          "  --config FILE the configuration whose store.url is the default\n"
          "                STORE_DIR (default: $BENCHPROF_CONFIG, else\n"
          "                " BP_CONFIG_DEFAULT_PATH "); a STORE_DIR given\n"
          "                wins\n"
          "  --port N      TCP port; 0 picks a free one (default: 8000)\n"
          "  --bind ADDR   numeric address to listen on (default: 127.0.0.1;\n"
          "                0.0.0.0 or :: makes the store readable by anyone\n"
          "                who can reach this machine)\n"
          "  --public-url URL\n"
          "                the URL readers reach this server by (a proxy's or\n"
          "                a host name): links in pages and printed start with\n"
          "                it (default: the bound address's URL; the request's\n"
          "                Host header is never used)\n"
          "  --allow-origin ORIGIN\n"
          "                let pages of ORIGIN (https://host[:port]) read the\n"
          "                store too; repeatable.  Only the Firefox Profiler's\n"
          "                origin (" BP_SERVE_PROFILER_ORIGIN ") and this\n"
          "                server's own are allowed otherwise: a request from\n"
          "                any other web page is refused (403)\n"
          "  -h, --help    show this help\n"
          "\n"
          "The first line printed is `serving STORE_DIR at URL`.\n",
          usage_line);
}

#define MAX_ORIGINS 32

extern char **environ;

struct serve_args {
  const char *root;
  char *owned_root;   /* the default store's, malloc'd */
  const char *bind;
  unsigned port;
  const char *public_url;
  const char *config;   /* --config FILE, NULL: the default one */
  const char *origins[MAX_ORIGINS];
  size_t norigins;
};

static bool parse_port(const char *s, unsigned *out)
{
  uint64_t v;
  if(!bpi_text_u64(s, 0, 65535, &v))
    return false;
  *out = (unsigned)v;
  return true;
}

/* No STORE_DIR: the store run publishes to, the configuration's
 * store.url, else the default one ($XDG_DATA_HOME/benchprof/store). */
static bool default_root(struct serve_args *a)
{
  struct bp_config cfg;
  struct bp_err err = {0};
  bool ok = bp_cli_config_load(&cfg, a->config, false, "serving the "
                               "default store") != BP_CLI_CONFIG_FAIL;
  if(ok && cfg.store.url)
    a->owned_root = strdup(cfg.store.url);
  else if(ok && bpi_publish_default_store(environ, &a->owned_root, &err)) {
    bp_msg_err(&err, err.code);
    ok = false;
  }
  bpi_config_cleanup(&cfg);
  if(ok && !a->owned_root) {
    bp_msg_error("serve: %s", bp_strerror(BPE_NOMEM));
    ok = false;
  }
  if(ok)
    a->root = a->owned_root;
  return ok;
}

static int parse_args(int argc, char **argv, struct serve_args *a)
{
  static const struct option longopts[] = {
    {"port", required_argument, NULL, 'p'},
    {"bind", required_argument, NULL, 'b'},
    {"public-url", required_argument, NULL, 'u'},
    {"allow-origin", required_argument, NULL, 'o'},
    {"config", required_argument, NULL, 'c'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
  };
  int opt;
  optind = 1;
  while((opt = getopt_long(argc, argv, "p:b:h", longopts, NULL)) != -1) {
    switch(opt) {
    case 'p':
      if(!parse_port(optarg, &a->port)) {
        bp_msg_error("--port '%s': not a port number (0 to 65535)", optarg);
        return BP_EXIT_USAGE;
      }
      break;
    case 'b':
      a->bind = optarg;
      break;
    case 'u':
      if(bp_cli_url_option("public-url", optarg, BP_URL_HTTP))
        return BP_EXIT_USAGE;
      a->public_url = optarg;
      break;
    case 'o':
      if(!bpi_serve_origin_valid(optarg)) {
        bp_msg_error("--allow-origin '%s': not an origin (http or https, a "
                     "host, an optional port, no path)", optarg);
        return BP_EXIT_USAGE;
      }
      if(a->norigins == MAX_ORIGINS) {
        bp_msg_error("--allow-origin: %d origins at most", MAX_ORIGINS);
        return BP_EXIT_USAGE;
      }
      a->origins[a->norigins++] = optarg;
      break;
    case 'c':
      a->config = optarg;
      break;
    case 'h':
      usage(stdout);
      return BP_EXIT_OK;
    default:
      return bp_cli_bad_option("serve", argv, "p:b:h", longopts);
    }
  }
  if(argc - optind > 1) {
    bp_msg_error("one store directory at most (%s)", usage_line);
    return BP_EXIT_USAGE;
  }
  if(optind < argc)
    a->root = argv[optind];
  else if(!default_root(a))
    return BP_EXIT_USAGE;
  if(!strncmp(a->root, "file://", 7))
    a->root += 7;
  else if(strstr(a->root, "://")) {
    bp_msg_error("'%s': serve reads a local store (a directory or a "
                 "file:// URL)", a->root);
    return BP_EXIT_USAGE;
  }
  return -1;
}

/* A name from the store (anyone's benchmark name) printed to a terminal:
 * control characters become '?'. */
static void print_name(const char *s)
{
  for(; *s; s++)
    putchar((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s);
}

static void print_links(const struct bp_serve *sv)
{
  struct bp_serve_link *links;
  size_t n;
  struct bp_err err = {0};
  bp_code rc = bpi_serve_latest_links(sv, &links, &n, &err);
  if(rc) {
    bp_msg_err(&err, rc);
    return;
  }
  for(size_t i = 0; i < n; i++) {
    fputs("latest ", stdout);
    print_name(links[i].project);
    putchar(' ');
    print_name(links[i].branch);
    putchar(' ');
    print_name(links[i].testbed);
    putchar(' ');
    print_name(links[i].benchmark);
    printf("\n  page: %s\n  firefox profiler: %s\n", links[i].page,
           links[i].profiler);
  }
  if(!n)
    bp_msg_note("no latest profiles in the store yet");
  bpi_serve_links_free(links, n);
}

static int serve(const struct serve_args *ap)
{
  struct serve_args a = *ap;
  struct bp_serve_opts o = {0};
  struct bp_serve *sv;
  struct bp_err err = {0};
  sigset_t stop, old;
  int sig = 0;
  /* a shell starts a background job with SIGINT ignored, and an ignored
   * signal never reaches sigwait: take both back to their defaults, then
   * block them before the server's thread starts, so that thread inherits
   * the mask and the signals wait for sigwait below */
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  if(pthread_sigmask(SIG_BLOCK, &stop, &old)) {
    bp_msg_error("cannot block SIGINT and SIGTERM");
    return BP_EXIT_ERROR;
  }
  /* room for the connections serve accepts (its limit follows the
   * descriptors there are): the soft limit up to the hard one, 4096 at
   * most */
  struct rlimit rl;
  if(!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < 4096 &&
     rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max < 4096 ? rl.rlim_max : 4096;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
  o.root = a.root;
  o.bind = a.bind;
  o.port = a.port;
  o.public_url = a.public_url;
  o.allow_origins = a.origins;
  o.nallow_origins = a.norigins;
  bp_code code = bpi_serve_start(&sv, &o, &err);
  if(code) {
    bp_msg_err(&err, code);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return BP_EXIT_ERROR;
  }
  printf("serving %s at %s\n", a.root, bpi_serve_url(sv));
  print_links(sv);
  fflush(stdout);
  if(a.bind && strcmp(a.bind, "127.0.0.1") && strcmp(a.bind, "::1"))
    bp_msg_warn("listening on %s: anyone who can reach it reads the store",
                a.bind);
  while(sigwait(&stop, &sig) == EINTR)
    ;
  bp_msg_note("%s: stopping", sig == SIGINT ? "SIGINT" : "SIGTERM");
  bpi_serve_stop(sv);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return BP_EXIT_OK;
}

int cmd_serve(int argc, char **argv)
{
  struct serve_args a = { .root = NULL, .port = 8000 };
  int rc = parse_args(argc, argv, &a);
  if(rc < 0)
    rc = serve(&a);
  free(a.owned_root);
  return rc;
}

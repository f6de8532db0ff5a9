/* benchprof index: write the store's static pages again (site.h) from
 * the lists publications keep in it.  Publishing writes them already;
 * this is for after an upgrade, or when a publisher stopped between its
 * list and its pages.  The store options are publish_opts.c's. */
#include "bp_setup.h"
#include "cli.h"
#include "msgs.h"

#include "ci.h"
#include "config.h"
#include "err.h"
#include "site.h"
#include "store.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
  fprintf(out,
    "usage: benchprof index [--store URL] [options]\n"
    "\n"
    "Write the store's static pages (index.html per project, branch and\n"
    "run) again from the lists that publications keep in it, so that a\n"
    "bucket website or CDN in front of the store shows every run.\n"
    "`benchprof run` writes them as it publishes; this rebuilds them.\n"
    "\n"
    "      --store URL         file://, s3:// or http(s):// (default: as\n"
    "                          'benchprof run': $XDG_DATA_HOME/benchprof/store)\n"
    "      --public-url URL    where readers load the store's objects\n"
    "      --s3-endpoint URL   --s3-region R   --s3-path-style\n"
    "      --ca-file FILE      --timeout S     --retries N\n"
    "      --config FILE       the configuration (its store and network)\n"
    "  -v, --verbose           a line per HTTP request (secrets redacted)\n"
    "  -h, --help              show this help\n");
}

int cmd_index(int argc, char **argv)
{
  enum { OPT_CONFIG = BP_CLI_PUB_LAST };
  static const struct option longopts[] = {
    {"store", required_argument, NULL, BP_CLI_PUB_STORE},
    {"public-url", required_argument, NULL, BP_CLI_PUB_PUBLIC_URL},
    {"s3-endpoint", required_argument, NULL, BP_CLI_PUB_S3_ENDPOINT},
    {"s3-region", required_argument, NULL, BP_CLI_PUB_S3_REGION},
    {"s3-path-style", no_argument, NULL, BP_CLI_PUB_S3_PATH_STYLE},
    {"ca-file", required_argument, NULL, BP_CLI_PUB_CA_FILE},
    {"timeout", required_argument, NULL, BP_CLI_PUB_TIMEOUT},
    {"retries", required_argument, NULL, BP_CLI_PUB_RETRIES},
    {"config", required_argument, NULL, OPT_CONFIG},
    {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
  };
  struct bp_cli_publish p;
  struct bp_config cfg;
  const char *config = NULL;
  int opt;
  /* the configuration first: the flags then win over it */
  optind = 1;
  while((opt = getopt_long(argc, argv, "vh", longopts, NULL)) != -1)
    if(opt == OPT_CONFIG)
      config = optarg;
  bp_cli_publish_defaults(&p);
  if(bp_cli_config_load(&cfg, config, true, "indexing with the defaults") !=
     BP_CLI_CONFIG_OK) {
    bpi_config_cleanup(&cfg);
    return BP_EXIT_USAGE;
  }
  bp_cli_publish_config(&p, &cfg);
  int status = -1;
  optind = 1;
  while(status < 0 &&
        (opt = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
    if(opt == 'h') {
      usage(stdout);
      status = BP_EXIT_OK;
    }
    else if(opt == '?')
      status = bp_cli_bad_option("index", argv, "vh", longopts);
    else if(opt != OPT_CONFIG) {
      int rc = bp_cli_publish_option(opt, optarg, &p);
      if(rc)
        status = rc;
    }
  }
  if(status < 0 && optind < argc) {
    bp_msg_error("index takes no arguments ('%s')", argv[optind]);
    status = BP_EXIT_USAGE;
  }
  if(status < 0) {
    struct bp_ident id = {0};
    struct bp_store *st = NULL;
    struct bp_site_stats stats;
    struct bp_err err = {0};
    if(!bp_cli_publish_store(&p, &id, &st))
      status = BP_EXIT_ERROR;
    else {
      bp_code rc = bpi_site_rebuild(st, &stats, &err);
      if(rc) {
        bp_msg_err(&err, rc);
        status = BP_EXIT_ERROR;
      }
      else {
        printf("%s: %zu pages written (%zu projects, %zu branches, %zu "
               "runs)\n", bpi_store_url(st), stats.pages, stats.projects,
               stats.branches, stats.runs);
        status = BP_EXIT_OK;
      }
    }
    bpi_store_close(st);
    bpi_ident_cleanup(&id);
  }
  bpi_config_cleanup(&cfg);
  return status;
}

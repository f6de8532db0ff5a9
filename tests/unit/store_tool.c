/* store_tool: the store library from the command line, for the store and
 * http integration tests.
 *
 *   store_tool [options] put URL KEY FILE   store FILE under KEY
 *   store_tool [options] get URL KEY        write the object to stdout
 *   store_tool [options] url URL KEY        print the public URL of KEY
 *   store_tool part NAME                    print bpi_store_key_part(NAME)
 *   store_tool decode PART                  print bpi_store_key_decode(PART)
 *
 * Options: --public-url U, --endpoint E, --region R, --path-style,
 * --retries N, --backoff-ms N, --timeout-ms N, --connect-timeout-ms N,
 * --max-answer N (bytes), --max-retry-after-ms N, --deadline-ms N (from
 * the start), --ca-file F, --type T and --encoding E (put; default: by
 * KEY's name),
 * -v (http debug lines on stderr, prefixed "* ").  Credentials come from
 * the environment: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
 * AWS_SESSION_TOKEN, STORE_TOKEN (bearer).
 *
 * On an error it prints "store_tool: <code>: <message>" to stderr and
 * exits with the bp_code (12 BPE_NET, 13 BPE_HTTP, 15 BPE_NOT_FOUND...);
 * 2 for a usage error. */
#include "bp_setup.h"
#include "store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void on_debug(void *ctx, const char *line)
{
  (void)ctx;
  fprintf(stderr, "* %s\n", line);
}

static int usage(void)
{
  fprintf(stderr, "usage: store_tool [options] put URL KEY FILE | get URL "
          "KEY | url URL KEY | part NAME | decode PART\n");
  return 2;
}

static bool number(const char *s, long *out)
{
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if(errno || end == s || *end || v < 0)
    return false;
  *out = v;
  return true;
}

static int print_owned(char *s)
{
  if(!s) {
    fprintf(stderr, "store_tool: out of memory\n");
    return 1;
  }
  printf("%s\n", s);
  free(s);
  return 0;
}

int main(int argc, char **argv)
{
  struct bp_store_opts so = { 0 };
  struct bp_http_opts ho;
  const char *type = NULL, *encoding = NULL;
  bool verbose = false;
  int i = 1;

  bpi_http_opts_default(&ho);
  for(; i < argc && argv[i][0] == '-'; i++) {
    const char *opt = argv[i];
    const char *val = i + 1 < argc ? argv[i + 1] : NULL;
    long n = 0;
    if(!strcmp(opt, "-v")) {
      verbose = true;
      continue;
    }
    if(!strcmp(opt, "--path-style")) {
      so.s3_path_style = true;
      continue;
    }
    if(!val)
      return usage();
    i++;
    if(!strcmp(opt, "--public-url"))
      so.public_url = val;
    else if(!strcmp(opt, "--endpoint"))
      so.s3_endpoint = val;
    else if(!strcmp(opt, "--region"))
      so.s3_region = val;
    else if(!strcmp(opt, "--ca-file"))
      ho.ca_file = val;
    else if(!strcmp(opt, "--type"))
      type = val;
    else if(!strcmp(opt, "--encoding"))
      encoding = val;
    else if(!number(val, &n))
      return usage();
    else if(!strcmp(opt, "--retries"))
      ho.retries = (unsigned)n;
    else if(!strcmp(opt, "--backoff-ms"))
      ho.backoff_ms = n;
    else if(!strcmp(opt, "--timeout-ms"))
      ho.total_timeout_ms = n;
    else if(!strcmp(opt, "--connect-timeout-ms"))
      ho.connect_timeout_ms = n;
    else if(!strcmp(opt, "--max-answer"))
      ho.max_answer_bytes = (size_t)n;
    else if(!strcmp(opt, "--max-retry-after-ms"))
      ho.max_retry_after_ms = n;
    else if(!strcmp(opt, "--deadline-ms"))
      ho.deadline_ms = bpi_http_now_ms() + n;
    else
      return usage();
  }
  if(i >= argc)
    return usage();
  const char *cmd = argv[i++];
  int left = argc - i;
  if(!strcmp(cmd, "part") && left == 1)
    return print_owned(bpi_store_key_part(argv[i]));
  if(!strcmp(cmd, "decode") && left == 1)
    return print_owned(bpi_store_key_decode(argv[i]));
  if(!((!strcmp(cmd, "put") && left == 3) ||
       (!strcmp(cmd, "get") && left == 2) ||
       (!strcmp(cmd, "url") && left == 2)))
    return usage();
  const char *key = argv[i + 1];

  if(verbose) {
    ho.debug = on_debug;
    ho.debug_ctx = NULL;
  }
  so.url = argv[i];
  so.http = &ho;
  so.aws_key = getenv("AWS_ACCESS_KEY_ID");
  so.aws_secret = getenv("AWS_SECRET_ACCESS_KEY");
  so.aws_session_token = getenv("AWS_SESSION_TOKEN");
  so.bearer = getenv("STORE_TOKEN");

  struct bp_err err = { .code = BP_OK };
  struct bp_store *st = NULL;
  bp_code rc = bpi_store_open(&st, &so, &err);
  if(!rc && !strcmp(cmd, "url")) {
    char *url = bpi_store_public_url(st, key);
    bpi_store_close(st);
    return print_owned(url);
  }
  if(!rc && !strcmp(cmd, "put")) {
    if(!type) {
      const char *slash = strrchr(key, '/');
      bpi_store_content_type(slash ? slash + 1 : key, &type, &encoding);
    }
    rc = bpi_store_put_file(st, key, argv[i + 2], type, encoding, &err);
  }
  else if(!rc) {
    char *data = NULL;
    size_t len = 0;
    rc = bpi_store_get(st, key, &data, &len, &err);
    if(!rc && fwrite(data, 1, len, stdout) != len)
      rc = BPE_IO;
    free(data);
  }
  bpi_store_close(st);
  if(rc) {
    fprintf(stderr, "store_tool: %s: %s\n", bp_strerror(rc),
            err.msg[0] ? err.msg : "(no message)");
    return (int)rc;
  }
  return 0;
}

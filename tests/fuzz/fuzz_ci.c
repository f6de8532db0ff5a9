/* fuzz_ci: a GitHub Actions event payload (the file at GITHUB_EVENT_PATH)
 * -> bpi_ci_detect.  The environment names everything git would be asked
 * for, so no process is started; whatever the payload holds, the identity
 * that comes back is complete or an error says what is wrong. */
#include "bp_setup.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ci.h"
#include "fuzz.h"

static char payload[64];

static void make_payload_file(void)
{
  const char *dir = getenv("TMPDIR");
  snprintf(payload, sizeof(payload), "%s/fuzz_ci.XXXXXX",
           dir && dir[0] && sizeof(payload) > strlen(dir) + 16 ? dir : "/tmp");
  int fd = mkstemp(payload);
  if(fd < 0)
    abort();
  close(fd);
}

static void remove_payload_file(void)
{
  unlink(payload);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if(!payload[0]) {
    make_payload_file();
    atexit(remove_payload_file);
  }
  FILE *f = fopen(payload, "wb");
  if(!f || fwrite(data, 1, size, f) != size || fclose(f))
    abort();
  char event[96];
  snprintf(event, sizeof(event), "GITHUB_EVENT_PATH=%s", payload);
  char *envp[] = {
    (char *)"GITHUB_ACTIONS=true", event,
    (char *)"GITHUB_EVENT_NAME=pull_request",
    (char *)"GITHUB_REPOSITORY=octo/widget",
    (char *)"GITHUB_REF_NAME=1/merge",
    (char *)"GITHUB_SHA=0123456789abcdef0123456789abcdef01234567",
    (char *)"GITHUB_API_URL=http://127.0.0.1:1",
    (char *)"BENCHER_TESTBED=fuzz", NULL
  };
  struct bp_ident id = {0};
  struct bp_err err = {0};
  bp_code rc = bpi_ci_detect(&id, envp, "/nonexistent-fuzz-dir", &err);
  if(!rc && (!id.project || !id.branch || !id.hash || !id.testbed))
    abort();
  if(rc && !err.msg[0])
    abort();
  bpi_ident_cleanup(&id);
  return 0;
}

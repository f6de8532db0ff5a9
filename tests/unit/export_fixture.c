/* export_fixture: writes every artifact of the synthetic profile into the
 * directory given as argv[1], for tests/integration/export_validators.sh to
 * feed to the external validators (profiler-cli, go tool pprof, ...). */
#include "bp_setup.h"
#include "export.h"
#include "synthetic_profile.h"

#include <stdio.h>

int main(int argc, char **argv)
{
  struct bp_profile *p = NULL;
  struct bp_err err = {.code = BP_OK};
  if(argc != 2) {
    fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  bp_code rc = synth_profile_new(&p);
  if(!rc)
    rc = bpi_export_all(p, argv[1], NULL, &err);
  if(rc)
    fprintf(stderr, "export_fixture: %s: %s\n", bp_strerror(rc), err.msg);
  bpi_profile_free(p);
  return rc ? 1 : 0;
}

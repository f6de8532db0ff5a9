/* benchprof config: being written. */
#include "bp_setup.h"
#include "cli.h"
#include "msgs.h"

int cmd_config(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  bp_msg_error("'benchprof config' is not written yet");
  return BP_EXIT_ERROR;
}

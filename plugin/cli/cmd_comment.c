/* benchprof comment: being written. */
#include "bp_setup.h"
#include "cli.h"
#include "msgs.h"

int cmd_comment(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  bp_msg_error("'benchprof comment' is not written yet");
  return BP_EXIT_ERROR;
}

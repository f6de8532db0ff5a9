/* What the commands that run a benchmark share: passing signals on to it
 * and telling why it could not be started. */
#include "bp_setup.h"
#include "cli.h"
#include "msgs.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

static volatile sig_atomic_t target_pid;

/* SIGINT and SIGTERM go to the command, which decides what to do; we keep
 * recording until it exits, then write the (partial) profile.  A Ctrl-C
 * typed at the terminal already reached the command through its process
 * group, so that one is not sent twice. */
static void forward_signal(int sig, siginfo_t *info, void *uctx)
{
  (void)uctx;
  if(info && info->si_code == SI_KERNEL && (sig == SIGINT || sig == SIGQUIT))
    return;
  if(target_pid > 0)
    kill((pid_t)target_pid, sig);
}

void bp_cli_forward_signals(pid_t pid)
{
  static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1,
                             SIGUSR2};
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_sigaction = forward_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  target_pid = pid;
  for(size_t i = 0; i < BP_ARRAY_LEN(sigs); i++)
    sigaction(sigs[i], &sa, NULL);
}

int bp_cli_exec_failure(const struct bp_err *err, const char *cmd)
{
  if(err->sys_errno == ENOENT) {
    bp_msg_error("%s: command not found", cmd);
    return BP_EXIT_NOT_FOUND;
  }
  bp_msg_error("cannot run '%s': %s", cmd, strerror(err->sys_errno));
  return err->sys_errno == EACCES || err->sys_errno == ENOEXEC
           ? 126 : BP_EXIT_NOT_FOUND;
}


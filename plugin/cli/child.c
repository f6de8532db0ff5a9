/* What the commands that run a benchmark share: passing signals on to it
 * and telling why it could not be started. */
#include "bp_setup.h"
#include "cli.h"
#include "msgs.h"

#include "buf.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t target_pid;
/* The first of SIGINT, SIGTERM, SIGHUP, SIGQUIT that reached benchprof
 * while the command ran (or, under bp_cli_guard_interrupts, at any
 * moment of the run): the run was interrupted, whatever the command then
 * did with it. */
static volatile sig_atomic_t interrupted_by;
/* Whether a command was running when that signal came (it was passed
 * on): then the command's exit status says how the run ended. */
static volatile sig_atomic_t interrupt_reached_command;

/* What the signals we change meant before, put back when we stop: with
 * --each the next invocation's command must inherit what benchprof's
 * parent gave it, not our SIG_IGN for SIGPIPE. */
static struct sigaction saved_chld, saved_pipe;
static bool restore_due;

/* SIGINT and SIGTERM go to the command, which decides what to do; we keep
 * recording until it exits, then write the (partial) profile.  A Ctrl-C
 * typed at the terminal already reached the command through its process
 * group, so that one is not sent twice. */
static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1,
                                SIGUSR2};

/* Whether the command has not exited yet.  One that exited but is not
 * reaped yet (benchprof is about to) still takes a kill() without error,
 * but never sees the signal: its exit status is its own, not an answer
 * to it.  waitid with WNOWAIT leaves it to the sampler to reap; it is a
 * plain system call, safe in a handler. */
static bool command_running(pid_t pid)
{
  siginfo_t si;
  si.si_pid = 0;
  return pid > 0 &&
         !waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) &&
         si.si_pid == 0;
}

static void forward_signal(int sig, siginfo_t *info, void *uctx)
{
  (void)uctx;
  int saved = errno;
  pid_t pid = (pid_t)target_pid;
  bool running = command_running(pid);
  if(!interrupted_by && sig != SIGUSR1 && sig != SIGUSR2) {
    interrupted_by = sig;
    interrupt_reached_command = running;
  }
  bool typed = info && info->si_code == SI_KERNEL &&
               (sig == SIGINT || sig == SIGQUIT);
  if(running && !typed)
    kill(pid, sig);
  errno = saved;
}

/* What the forwarded signals meant when forwarding began, put back when
 * it stops (not SIG_DFL): one benchprof was started with ignored (SIGHUP
 * under nohup, SIGINT in a shell's background job) is ignored by the
 * command, which was forked before the handlers went in, and with --each
 * must be by the next invocation's command too.  Such a signal is still
 * passed on when it comes (kill -INT of a background benchprof): the
 * command decides, and ignores it unless it set a handler of its own. */
static struct sigaction saved_fwd[BP_ARRAY_LEN(forwarded)];

void bp_cli_forward_signals(pid_t pid)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_sigaction = forward_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  target_pid = pid;
  restore_due = true;
  for(size_t i = 0; i < BP_ARRAY_LEN(forwarded); i++)
    sigaction(forwarded[i], &sa, &saved_fwd[i]);
  /* a signal that came before the command could be told (its process
   * is held before exec, with the default actions: it dies as the
   * command would) */
  if(interrupted_by)
    kill(pid, interrupted_by);
  /* The command was forked with what we inherited; benchprof itself must
   * reap it (an inherited SIG_IGN would let the kernel do it) and must
   * survive a closed stdout while it copies the command's output. */
  sa.sa_handler = SIG_DFL;
  sa.sa_flags = 0;
  sigaction(SIGCHLD, &sa, &saved_chld);
  sa.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &sa, &saved_pipe);
}

/* The signals forwarded, blocked from the fork of the command until
 * bp_cli_forward_signals knows its pid: one that comes in between is
 * then passed on to the held command, not only noted (or, for SIGUSR1
 * and SIGUSR2, not yet caught, fatal to benchprof). */
void bp_cli_hold_signals(sigset_t *saved)
{
  sigset_t set;
  sigemptyset(&set);
  for(size_t i = 0; i < BP_ARRAY_LEN(forwarded); i++)
    sigaddset(&set, forwarded[i]);
  sigprocmask(SIG_BLOCK, &set, saved);
}

void bp_cli_release_signals(const sigset_t *saved)
{
  sigprocmask(SIG_SETMASK, saved, NULL);
}

void bp_cli_stop_forwarding(void)
{
  /* the command is reaped: its pid may belong to someone else now, and
   * Ctrl-C should stop benchprof while it writes the artifacts (unless
   * it was ignored when we started: then it is again) */
  target_pid = 0;
  if(!restore_due)
    return;
  restore_due = false;
  for(size_t i = 0; i < BP_ARRAY_LEN(forwarded); i++)
    sigaction(forwarded[i], &saved_fwd[i], NULL);
  sigaction(SIGCHLD, &saved_chld, NULL);
  sigaction(SIGPIPE, &saved_pipe, NULL);
}

int bp_cli_interrupted(void)
{
  return interrupted_by;
}

/* The signals that interrupt a run, caught for the whole of it by
 * bp_cli_guard_interrupts: what they meant before, and which were
 * caught (one ignored when benchprof started stays ignored). */
static const int interrupting[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
static struct sigaction saved_guard[BP_ARRAY_LEN(interrupting)];
static bool guarded[BP_ARRAY_LEN(interrupting)];

void bp_cli_guard_interrupts(void)
{
  struct sigaction sa, old;
  memset(&sa, 0, sizeof(sa));
  sa.sa_sigaction = forward_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for(size_t i = 0; i < BP_ARRAY_LEN(interrupting); i++) {
    guarded[i] = !sigaction(interrupting[i], NULL, &old) &&
                 old.sa_handler != SIG_IGN &&
                 !sigaction(interrupting[i], &sa, &saved_guard[i]);
  }
}

void bp_cli_unguard_interrupts(void)
{
  for(size_t i = 0; i < BP_ARRAY_LEN(interrupting); i++)
    if(guarded[i]) {
      sigaction(interrupting[i], &saved_guard[i], NULL);
      guarded[i] = false;
    }
}

void bp_cli_block_interrupts(bool block, sigset_t *saved)
{
  if(!block) {
    sigprocmask(SIG_SETMASK, saved, NULL);
    return;
  }
  sigset_t set;
  sigemptyset(&set);
  for(size_t i = 0; i < BP_ARRAY_LEN(interrupting); i++)
    sigaddset(&set, interrupting[i]);
  sigprocmask(SIG_BLOCK, &set, saved);
}

bool bp_cli_interrupted_in_command(void)
{
  return interrupted_by && interrupt_reached_command;
}

int bp_cli_interrupted_status(int status)
{
  if(status || !interrupted_by || interrupt_reached_command)
    return status;
  return 128 + interrupted_by;
}

/* A wrapper that cannot exec benchprof run (the Bencher entrypoint: it
 * replaces a file after the run) passes the signals it gets on, but none
 * of its code runs when it is killed outright (a runner's hard timeout
 * sends SIGKILL): benchprof and the command would run on alone.  So the
 * kernel sends us SIGTERM when it dies, and the command gets a TERM it
 * can act on (its output survives) through forward_signal, as for a
 * cancelled job.  The death watched is that of the thread that forked
 * us, which for a shell is the process.  A parent that died before the
 * prctl sends nothing: then getppid() is no longer it. */
int bp_cli_die_with_parent(pid_t parent)
{
  if(prctl(PR_SET_PDEATHSIG, SIGTERM)) {
    bp_msg_error("--die-with-parent: cannot ask for a signal when pid %d "
                 "dies: %s; the command is not run", (int)parent,
                 strerror(errno));
    return BP_EXIT_ERROR;
  }
  pid_t now = getppid();
  if(now == parent)
    return -1;
  bp_msg_error("--die-with-parent %d: benchprof's parent is pid %d, not "
               "%d: that process has exited already (or never started "
               "benchprof); the command is not run", (int)parent, (int)now,
               (int)parent);
  return BP_EXIT_ERROR;
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


void bp_cli_default_signals(void)
{
  for(size_t i = 0; i < BP_ARRAY_LEN(interrupting); i++)
    if(guarded[i])
      signal(interrupting[i], SIG_DFL);
}

/* Read fd to EOF into out. */
static void read_all(int fd, struct bp_buf *out)
{
  char buf[65536];
  for(;;) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if(n < 0 && errno == EINTR)
      continue;
    if(n <= 0)
      return;
    bpi_buf_add(out, buf, (size_t)n);
  }
}

int bp_cli_capture(char *const *argv, struct bp_buf *out)
{
  int fds[2];
  if(pipe2(fds, O_CLOEXEC))
    return -1;
  /* no handler of ours runs in the child before the defaults are back:
   * it would swallow a signal meant for the program */
  sigset_t all, before;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &before);
  pid_t pid = fork();
  if(pid != 0)
    sigprocmask(SIG_SETMASK, &before, NULL);
  if(pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return -1;
  }
  if(pid == 0) {
    bp_cli_default_signals();
    sigprocmask(SIG_SETMASK, &before, NULL);
    if(dup2(fds[1], STDOUT_FILENO) < 0)
      _exit(127);
    execvp(argv[0], argv);
    _exit(errno == ENOENT ? 127 : 126);
  }
  close(fds[1]);
  read_all(fds[0], out);
  close(fds[0]);
  int st;
  pid_t r;
  do
    r = waitpid(pid, &st, 0);
  while(r < 0 && errno == EINTR);
  if(r != pid)
    return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
